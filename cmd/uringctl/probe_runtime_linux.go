//go:build linux

package main

import "github.com/pure-uring/uring/task"

// taskRuntime is what task.NewRuntime would choose here.
func taskRuntime() runtimeChoice {
	b := task.ChooseBackend()
	return runtimeChoice{Kind: b.Kind.String(), Reason: b.Reason}
}
