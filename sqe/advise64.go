//go:build linux

package sqe

import "github.com/pure-uring/uring/sys"

// Fadvise64 is Fadvise with a 64-bit length n (0: to the end of the file):
// io_uring_prep_fadvise64(3), IORING_OP_FADVISE with the length in the
// addr field, Linux 6.11 (older kernels answer EINVAL). No memory is held.
func Fadvise64(s *sys.SQE, fd int, off, n int64, advice uint32) error {
	const fn = "Fadvise64"
	if err := firstErr(checkFd(fn, "fd", fd), checkNonNeg(fn, "off", off), checkNonNeg(fn, "n", n)); err != nil {
		return err
	}
	prep(s, sys.OpFadvise, fd, uint64(n), 0, uint64(off))
	s.OpFlags = advice
	return nil
}

// Madvise64 is Madvise for memory of any length: io_uring_prep_madvise64(3),
// IORING_OP_MADVISE with the length in the off field, Linux 6.11 (older
// kernels answer EINVAL). mem must be page-aligned (memory from mmap, not
// the Go heap); the kernel uses its address until the CQE. An empty mem is
// a no-op the kernel completes with 0.
func Madvise64(s *sys.SQE, mem []byte, advice uint32) error {
	prep(s, sys.OpMadvise, -1, addrOf(mem), 0, uint64(len(mem)))
	s.OpFlags = advice
	return nil
}
