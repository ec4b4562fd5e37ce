//go:build !linux

package goio

import "github.com/pure-uring/uring/task"

// backendOpts: off Linux every executor runs the fallback.
func backendOpts() []task.Option { return nil }
