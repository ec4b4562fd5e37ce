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
