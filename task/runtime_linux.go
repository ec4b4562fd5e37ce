//go:build linux

package task

// Runtime is a set of executors, one per CPU by default.
type Runtime struct {
	execs []*Executor
}
