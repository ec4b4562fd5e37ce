//go:build linux

package sqe

import (
	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// Paths: every path and xattr-name argument is a NUL-terminated []byte with
// no other NUL (build one with Path or AppendPath). The kernel reads it when
// the request starts, which may be after Submit returns: keep it alive and
// pinned until the CQE.

// Openat prepares openat(2) of path relative to dirfd (unix.AT_FDCWD or a
// directory fd) with O_* flags and mode: io_uring_prep_openat(3),
// IORING_OP_OPENAT, Linux 5.6. O_CLOEXEC is always added. The result is
// the new fd. The kernel reads path until the CQE.
func Openat(s *sys.SQE, dirfd int, path []byte, flags int, mode uint32) error {
	if err := checkFlags32("Openat", "flags", flags); err != nil {
		return err
	}
	if err := firstErr(checkDirfd("Openat", "dirfd", dirfd), checkPath("Openat", "path", path)); err != nil {
		return err
	}
	prep(s, sys.OpOpenat, dirfd, addrOf(path), mode, 0)
	s.OpFlags = uint32(flags | unix.O_CLOEXEC)
	return nil
}

// OpenatDirect is Openat into fixed-file slot slot (AllocSlot: any free
// slot) instead of an fd: io_uring_prep_openat_direct(3), IORING_OP_OPENAT,
// Linux 5.15 (AllocSlot: 5.19). The result is 0, or the slot allocated.
// O_CLOEXEC is rejected (the kernel refuses it for direct descriptors). The
// kernel reads path until the CQE.
func OpenatDirect(s *sys.SQE, dirfd int, path []byte, flags int, mode uint32, slot Slot) error {
	if err := checkFlags32("OpenatDirect", "flags", flags); err != nil {
		return err
	}
	if err := firstErr(checkDirfd("OpenatDirect", "dirfd", dirfd), checkPath("OpenatDirect", "path", path),
		checkSlot("OpenatDirect", "slot", slot, true), checkNoCloexec("OpenatDirect", uint64(flags))); err != nil {
		return err
	}
	prep(s, sys.OpOpenat, dirfd, addrOf(path), mode, 0)
	s.OpFlags = uint32(flags)
	s.FileIndex = targetIndex(slot)
	return nil
}

// Openat2 prepares openat2(2) of path relative to dirfd as how says:
// io_uring_prep_openat2(3), IORING_OP_OPENAT2, Linux 5.6. how.Flags is used
// as given (add O_CLOEXEC yourself). The result is the new fd. The kernel
// reads path and how until the CQE.
func Openat2(s *sys.SQE, dirfd int, path []byte, how *unix.OpenHow) error {
	if err := checkOpenat2("Openat2", dirfd, path, how); err != nil {
		return err
	}
	prep(s, sys.OpOpenat2, dirfd, addrOf(path), uint32(sys.SizeOf[unix.OpenHow]()), ptrOf(how))
	return nil
}

// Openat2Direct is Openat2 into fixed-file slot slot (AllocSlot: any free
// slot): io_uring_prep_openat2_direct(3), IORING_OP_OPENAT2, Linux 5.15.
// how.Flags must not hold O_CLOEXEC. The kernel reads path and how until
// the CQE.
func Openat2Direct(s *sys.SQE, dirfd int, path []byte, how *unix.OpenHow, slot Slot) error {
	if err := firstErr(checkOpenat2("Openat2Direct", dirfd, path, how), checkSlot("Openat2Direct", "slot", slot, true)); err != nil {
		return err
	}
	if err := checkNoCloexec("Openat2Direct", how.Flags); err != nil {
		return err
	}
	prep(s, sys.OpOpenat2, dirfd, addrOf(path), uint32(sys.SizeOf[unix.OpenHow]()), ptrOf(how))
	s.FileIndex = targetIndex(slot)
	return nil
}

func checkOpenat2(fn string, dirfd int, path []byte, how *unix.OpenHow) error {
	if how == nil {
		return argErr(fn, "how", "is nil")
	}
	return firstErr(checkDirfd(fn, "dirfd", dirfd), checkPath(fn, "path", path))
}

func checkNoCloexec(fn string, flags uint64) error {
	if flags&unix.O_CLOEXEC != 0 {
		return argErr(fn, "flags", "has O_CLOEXEC, which direct descriptors refuse")
	}
	return nil
}

// Close prepares close(2) of fd: io_uring_prep_close(3), IORING_OP_CLOSE,
// Linux 5.6. No memory is held.
func Close(s *sys.SQE, fd int) error {
	if err := checkFd("Close", "fd", fd); err != nil {
		return err
	}
	prep(s, sys.OpClose, fd, 0, 0, 0)
	return nil
}

// CloseDirect prepares the removal of the file in fixed-file slot slot:
// io_uring_prep_close_direct(3), IORING_OP_CLOSE, Linux 5.15. No memory is
// held.
func CloseDirect(s *sys.SQE, slot Slot) error {
	if err := checkSlot("CloseDirect", "slot", slot, false); err != nil {
		return err
	}
	prep(s, sys.OpClose, 0, 0, 0, 0)
	s.FileIndex = targetIndex(slot)
	return nil
}

// Statx prepares statx(2) of path relative to dirfd (with AT_EMPTY_PATH and
// the path "\x00": of dirfd itself) for the STATX_* fields in mask, into
// st: io_uring_prep_statx(3), IORING_OP_STATX, Linux 5.6. The kernel reads
// path and writes *st until the CQE.
func Statx(s *sys.SQE, dirfd int, path []byte, flags int, mask uint32, st *unix.Statx_t) error {
	if err := checkFlags32("Statx", "flags", flags); err != nil {
		return err
	}
	if err := firstErr(checkDirfd("Statx", "dirfd", dirfd), checkPath("Statx", "path", path)); err != nil {
		return err
	}
	if st == nil {
		return argErr("Statx", "st", "is nil")
	}
	prep(s, sys.OpStatx, dirfd, addrOf(path), mask, ptrOf(st))
	s.OpFlags = uint32(flags)
	return nil
}

// Renameat prepares renameat2(2) of oldpath (relative to olddirfd) to
// newpath (relative to newdirfd) with RENAME_* flags:
// io_uring_prep_renameat(3), IORING_OP_RENAMEAT, Linux 5.11. The kernel
// reads both paths until the CQE.
func Renameat(s *sys.SQE, olddirfd int, oldpath []byte, newdirfd int, newpath []byte, flags uint32) error {
	if err := firstErr(checkDirfd("Renameat", "olddirfd", olddirfd), checkPath("Renameat", "oldpath", oldpath),
		checkDirfd("Renameat", "newdirfd", newdirfd), checkPath("Renameat", "newpath", newpath)); err != nil {
		return err
	}
	prep(s, sys.OpRenameat, olddirfd, addrOf(oldpath), uint32(int32(newdirfd)), addrOf(newpath))
	s.OpFlags = flags
	return nil
}

// Unlinkat prepares unlinkat(2) of path relative to dirfd (flags
// unix.AT_REMOVEDIR: rmdir): io_uring_prep_unlinkat(3), IORING_OP_UNLINKAT,
// Linux 5.11. The kernel reads path until the CQE.
func Unlinkat(s *sys.SQE, dirfd int, path []byte, flags int) error {
	if err := checkFlags32("Unlinkat", "flags", flags); err != nil {
		return err
	}
	if err := firstErr(checkDirfd("Unlinkat", "dirfd", dirfd), checkPath("Unlinkat", "path", path)); err != nil {
		return err
	}
	prep(s, sys.OpUnlinkat, dirfd, addrOf(path), 0, 0)
	s.OpFlags = uint32(flags)
	return nil
}

// Mkdirat prepares mkdirat(2) of path relative to dirfd with mode:
// io_uring_prep_mkdirat(3), IORING_OP_MKDIRAT, Linux 5.15. The kernel reads
// path until the CQE.
func Mkdirat(s *sys.SQE, dirfd int, path []byte, mode uint32) error {
	if err := firstErr(checkDirfd("Mkdirat", "dirfd", dirfd), checkPath("Mkdirat", "path", path)); err != nil {
		return err
	}
	prep(s, sys.OpMkdirat, dirfd, addrOf(path), mode, 0)
	return nil
}

// Symlinkat prepares symlinkat(2): a link at linkpath (relative to
// newdirfd) pointing to target: io_uring_prep_symlinkat(3),
// IORING_OP_SYMLINKAT, Linux 5.15. The kernel reads both strings until the
// CQE.
func Symlinkat(s *sys.SQE, target []byte, newdirfd int, linkpath []byte) error {
	if err := firstErr(checkPath("Symlinkat", "target", target), checkDirfd("Symlinkat", "newdirfd", newdirfd),
		checkPath("Symlinkat", "linkpath", linkpath)); err != nil {
		return err
	}
	prep(s, sys.OpSymlinkat, newdirfd, addrOf(target), 0, addrOf(linkpath))
	return nil
}

// Linkat prepares linkat(2): a hard link newpath (relative to newdirfd) to
// oldpath (relative to olddirfd), with AT_* flags: io_uring_prep_linkat(3),
// IORING_OP_LINKAT, Linux 5.15. The kernel reads both paths until the CQE.
func Linkat(s *sys.SQE, olddirfd int, oldpath []byte, newdirfd int, newpath []byte, flags int) error {
	if err := checkFlags32("Linkat", "flags", flags); err != nil {
		return err
	}
	if err := firstErr(checkDirfd("Linkat", "olddirfd", olddirfd), checkPath("Linkat", "oldpath", oldpath),
		checkDirfd("Linkat", "newdirfd", newdirfd), checkPath("Linkat", "newpath", newpath)); err != nil {
		return err
	}
	prep(s, sys.OpLinkat, olddirfd, addrOf(oldpath), uint32(int32(newdirfd)), addrOf(newpath))
	s.OpFlags = uint32(flags)
	return nil
}
