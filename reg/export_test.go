//go:build linux

package reg

import "github.com/pure-uring/uring/sys"

// SetAllocRangeUnchecked calls the kernel without reg's range check.
func SetAllocRangeUnchecked(t Target, off, n uint32) error {
	r := sys.FileIndexRange{Off: off, Len: n}
	_, err := register(t, sys.RegisterFileAllocRange, &r, 0)
	return err
}

// RegisterRaw calls op with no argument through reg's error wrapping.
func RegisterRaw(t Target, op sys.RegisterOp) error {
	_, err := registerNil(t, op, 0)
	return err
}

// SetUnregisterWaits makes Buffers.Unregister treat the kernel as one
// whose unregister waits for requests in flight (or not); the returned
// func restores the real answer.
func SetUnregisterWaits(waits bool) func() {
	old := unregisterWaits
	unregisterWaits = func() bool { return waits }
	return func() { unregisterWaits = old }
}
