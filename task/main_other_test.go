//go:build !linux

package task

// backendOpts: off Linux every executor runs the fallback.
func backendOpts() []Option { return nil }
