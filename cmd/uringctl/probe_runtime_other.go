//go:build !linux

package main

// taskRuntime: off Linux the task layer has no backend yet.
func taskRuntime() runtimeChoice {
	return runtimeChoice{Kind: "none", Reason: "the task layer runs on Linux only"}
}
