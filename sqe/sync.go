//go:build linux

package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
)

// Fsync prepares fsync(2) of fd, or fdatasync(2) with sys.FsyncDatasync in
// flags: io_uring_prep_fsync(3), IORING_OP_FSYNC, Linux 5.1. No memory is
// held.
func Fsync(s *sys.SQE, fd int, flags uint32) error {
	if err := firstErr(checkFd("Fsync", "fd", fd), checkFlags("Fsync", "flags", flags, sys.FsyncDatasync)); err != nil {
		return err
	}
	prep(s, sys.OpFsync, fd, 0, 0, 0)
	s.OpFlags = flags
	return nil
}

// SyncFileRange prepares sync_file_range(2) of n bytes of fd at off (n = 0:
// to the end of the file) with SYNC_FILE_RANGE_* flags:
// io_uring_prep_sync_file_range(3), IORING_OP_SYNC_FILE_RANGE, Linux 5.2.
// No memory is held.
func SyncFileRange(s *sys.SQE, fd int, off int64, n uint32, flags uint32) error {
	if err := firstErr(checkFd("SyncFileRange", "fd", fd), checkNonNeg("SyncFileRange", "off", off)); err != nil {
		return err
	}
	prep(s, sys.OpSyncFileRange, fd, 0, n, uint64(off))
	s.OpFlags = flags
	return nil
}

// Fallocate prepares fallocate(2) of length bytes of fd at off with FALLOC_FL_*
// mode: io_uring_prep_fallocate(3), IORING_OP_FALLOCATE, Linux 5.6. No
// memory is held.
func Fallocate(s *sys.SQE, fd int, mode uint32, off, length int64) error {
	if err := firstErr(checkFd("Fallocate", "fd", fd), checkNonNeg("Fallocate", "off", off), checkNonNeg("Fallocate", "length", length)); err != nil {
		return err
	}
	prep(s, sys.OpFallocate, fd, uint64(length), mode, uint64(off))
	return nil
}

// Fadvise prepares posix_fadvise(2) of n bytes of fd at off (n = 0: to the
// end of the file) with POSIX_FADV_* advice: io_uring_prep_fadvise(3),
// IORING_OP_FADVISE, Linux 5.6. No memory is held.
func Fadvise(s *sys.SQE, fd int, off int64, n uint32, advice uint32) error {
	if err := firstErr(checkFd("Fadvise", "fd", fd), checkNonNeg("Fadvise", "off", off)); err != nil {
		return err
	}
	prep(s, sys.OpFadvise, fd, 0, n, uint64(off))
	s.OpFlags = advice
	return nil
}

// Madvise prepares madvise(2) of the memory of mem with MADV_* advice:
// io_uring_prep_madvise(3), IORING_OP_MADVISE, Linux 5.6. mem must be
// page-aligned (memory from mmap, not the Go heap); the kernel uses its
// address until the CQE.
func Madvise(s *sys.SQE, mem []byte, advice uint32) error {
	if err := checkLen32("Madvise", "len(mem)", len(mem)); err != nil {
		return err
	}
	prep(s, sys.OpMadvise, -1, addrOf(mem), uint32(len(mem)), 0)
	s.OpFlags = advice
	return nil
}

// Ftruncate prepares ftruncate(2) of fd to length bytes:
// io_uring_prep_ftruncate(3), IORING_OP_FTRUNCATE, Linux 6.9. No memory is
// held.
func Ftruncate(s *sys.SQE, fd int, length int64) error {
	if err := firstErr(checkFd("Ftruncate", "fd", fd), checkNonNeg("Ftruncate", "length", length)); err != nil {
		return err
	}
	prep(s, sys.OpFtruncate, fd, 0, 0, uint64(length))
	return nil
}

// checkNonNeg accepts v >= 0.
func checkNonNeg(fn, arg string, v int64) error {
	if v < 0 {
		return argErr(fn, arg, "= "+strconv.FormatInt(v, 10)+" is negative")
	}
	return nil
}
