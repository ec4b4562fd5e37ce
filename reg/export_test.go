//go:build linux

package reg

import "github.com/pure-uring/uring/sys"

// SetAllocRangeUnchecked calls the kernel without reg's range check.
func SetAllocRangeUnchecked(t Target, off, n uint32) error {
	r := sys.FileIndexRange{Off: off, Len: n}
	_, err := register(t, sys.RegisterFileAllocRange, &r, 0)
	return err
}
