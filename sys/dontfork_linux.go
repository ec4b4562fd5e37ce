//go:build linux

package sys

import (
	"os"

	"golang.org/x/sys/unix"
)

// MadviseDontFork marks the mapping b MADV_DONTFORK (madvise(2)): a child
// made by fork(2) does not inherit it. io_uring_ring_dontfork(3) does this
// to a ring's mappings. b must be a whole mapping (page-aligned, as Mmap
// and MmapAnon return it); nil is a no-op.
func MadviseDontFork(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if err := unix.Madvise(b[:cap(b)], unix.MADV_DONTFORK); err != nil {
		return os.NewSyscallError("madvise", err)
	}
	return nil
}
