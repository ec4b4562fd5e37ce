//go:build linux

package sqe_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestExecNop(t *testing.T) {
	r := newRing(t)
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { sqe.Nop(s); return nil }))
	t.Run("NopResult", func(t *testing.T) {
		testutil.Require(t, uring.CheckCapability(uring.CapNopInjectResult)) // 6.11
		c := run(t, r, func(s *sys.SQE) error { sqe.NopResult(s, -int32(unix.EPERM)); return nil })
		require.Equal(t, unix.EPERM, errno(c))
	})
}

func TestExecReadWrite(t *testing.T) {
	r := newRing(t)
	f, _ := tempFile(t, nil)
	fd := int(f.Fd())
	data := []byte("hello, io_uring")
	require.Equal(t, len(data), runOK(t, r, func(s *sys.SQE) error { return sqe.Write(s, fd, data, 0) }))
	got := make([]byte, 64)
	n := runOK(t, r, func(s *sys.SQE) error { return sqe.Read(s, fd, got, 0) })
	require.Equal(t, data, got[:n])

	// Vectored, with and without RWF flags.
	iov, err := sqe.Iovecs(nil, [][]byte{[]byte("abc"), []byte("defg")})
	require.NoError(t, err)
	require.Equal(t, 7, runOK(t, r, func(s *sys.SQE) error { return sqe.Writev(s, fd, iov, 100) }))
	require.Equal(t, 3, runOK(t, r, func(s *sys.SQE) error { return sqe.Writev2(s, fd, iov[:1], 107, unix.RWF_DSYNC) }))
	a, b := make([]byte, 4), make([]byte, 6)
	riov, err := sqe.Iovecs(nil, [][]byte{a, b})
	require.NoError(t, err)
	require.Equal(t, 10, runOK(t, r, func(s *sys.SQE) error { return sqe.Readv(s, fd, riov, 100) }))
	require.Equal(t, "abcd", string(a))
	require.Equal(t, "efgabc", string(b))
	c := make([]byte, 3)
	riov2, err := sqe.Iovecs(nil, [][]byte{c})
	require.NoError(t, err)
	res := run(t, r, func(s *sys.SQE) error { return sqe.Readv2(s, fd, riov2, 0, unix.RWF_NOWAIT) })
	// RWF_NOWAIT needs a file system that can tell a read would block
	// (tmpfs can since 6.6): io_uring answers as preadv2(2) does.
	if _, perr := unix.Preadv2(fd, [][]byte{make([]byte, 3)}, 0, unix.RWF_NOWAIT); errors.Is(perr, unix.EOPNOTSUPP) {
		require.Equal(t, unix.EOPNOTSUPP, errno(res), "preadv2 says EOPNOTSUPP")
	} else {
		require.NoError(t, perr)
		require.Equal(t, int32(3), res.Res, "errno %v", errno(res))
		require.Equal(t, "hel", string(c))
	}

	// CurrentPos reads at, and advances, the file position.
	_, err = f.Seek(7, 0)
	require.NoError(t, err)
	n = runOK(t, r, func(s *sys.SQE) error { return sqe.Read(s, fd, got[:3], sqe.CurrentPos) })
	require.Equal(t, "io_", string(got[:n]))
	pos, err := f.Seek(0, 1)
	require.NoError(t, err)
	require.Equal(t, int64(10), pos)
	runtime.KeepAlive(data)
}

func TestExecFixedBuffers(t *testing.T) {
	r := newRing(t)
	f, _ := tempFile(t, nil)
	fd := int(f.Fd())
	b0, b1 := make([]byte, 4096), make([]byte, 4096)
	registerBuffers(t, r, b0, b1)
	copy(b0, "fixed write")
	require.Equal(t, 11, runOK(t, r, func(s *sys.SQE) error { return sqe.WriteFixed(s, fd, b0[:11], 0, 0) }))
	n := runOK(t, r, func(s *sys.SQE) error { return sqe.ReadFixed(s, fd, b1[100:200], 0, 1) })
	require.Equal(t, "fixed write", string(b1[100:100+n]))

	t.Run("Vectored", func(t *testing.T) {
		needOp(t, sys.OpWritevFixed) // and READV_FIXED: 6.15
		fixedVectored(t, r, fd, f.Name(), b0, b1)
	})
	runtime.KeepAlive(b0)
	runtime.KeepAlive(b1)
}

// fixedVectored writes and reads through WRITEV_FIXED and READV_FIXED with
// iovecs inside the registered buffers b0 and b1.
func fixedVectored(t *testing.T, r *uring.Ring, fd int, name string, b0, b1 []byte) {
	copy(b0[10:], "ab")
	copy(b0[20:], "cd")
	wiov, err := sqe.Iovecs(nil, [][]byte{b0[10:12], b0[20:22]})
	require.NoError(t, err)
	require.Equal(t, 4, runOK(t, r, func(s *sys.SQE) error { return sqe.WritevFixed(s, fd, wiov, 50, 0, 0) }))
	riov, err := sqe.Iovecs(nil, [][]byte{b1[0:1], b1[8:11]})
	require.NoError(t, err)
	require.Equal(t, 4, runOK(t, r, func(s *sys.SQE) error { return sqe.ReadvFixed(s, fd, riov, 50, 0, 1) }))
	require.Equal(t, "a", string(b1[0:1]))
	require.Equal(t, "bcd", string(b1[8:11]))
	got, err := os.ReadFile(name)
	require.NoError(t, err)
	require.Equal(t, "abcd", string(got[50:54]))
}

func TestExecSyncAllocAdvise(t *testing.T) {
	r := newRing(t)
	f, _ := tempFile(t, []byte("0123456789"))
	fd := int(f.Fd())
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Fsync(s, fd, 0) }))
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Fsync(s, fd, sys.FsyncDatasync) }))
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error {
		return sqe.SyncFileRange(s, fd, 0, 10, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE)
	}))
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Fallocate(s, fd, 0, 0, 1<<16) }))
	st, err := f.Stat()
	require.NoError(t, err)
	require.Equal(t, int64(1<<16), st.Size())
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Fadvise(s, fd, 0, 0, unix.FADV_DONTNEED) }))

	mem, err := unix.Mmap(-1, 0, 1<<16, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	defer unix.Munmap(mem)
	mem[0] = 1
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Madvise(s, mem, unix.MADV_DONTNEED) }))
	require.Zero(t, mem[0], "MADV_DONTNEED drops private anonymous pages")

	t.Run("Ftruncate", func(t *testing.T) {
		needOp(t, sys.OpFtruncate) // 6.9
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Ftruncate(s, fd, 5) }))
		st, err := f.Stat()
		require.NoError(t, err)
		require.Equal(t, int64(5), st.Size())
	})
}

func TestExecStatx(t *testing.T) {
	r := newRing(t)
	f, name := tempFile(t, []byte("statx me"))
	path := cpath(t, name)
	var got, want unix.Statx_t
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error {
		return sqe.Statx(s, unix.AT_FDCWD, path, 0, unix.STATX_BASIC_STATS, &got)
	}))
	require.NoError(t, unix.Statx(unix.AT_FDCWD, name, 0, unix.STATX_BASIC_STATS, &want))
	require.Equal(t, want.Ino, got.Ino)
	require.Equal(t, want.Size, got.Size)
	require.Equal(t, uint64(8), got.Size)
	require.Equal(t, want.Mode, got.Mode)
	require.Equal(t, want.Mtime, got.Mtime)

	// AT_EMPTY_PATH: stat the fd itself.
	var byFd unix.Statx_t
	empty := cpath(t, "")
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error {
		return sqe.Statx(s, int(f.Fd()), empty, unix.AT_EMPTY_PATH, unix.STATX_INO, &byFd)
	}))
	require.Equal(t, want.Ino, byFd.Ino)
}

func TestExecOpenClose(t *testing.T) {
	r := newRing(t)
	dir := t.TempDir()
	path := cpath(t, filepath.Join(dir, "new"))
	fd := runOK(t, r, func(s *sys.SQE) error { return sqe.Openat(s, unix.AT_FDCWD, path, unix.O_CREAT|unix.O_WRONLY, 0o640) })
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	require.NoError(t, err)
	require.Equal(t, unix.FD_CLOEXEC, flags&unix.FD_CLOEXEC, "Openat adds O_CLOEXEC")
	st, err := os.Stat(filepath.Join(dir, "new"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), st.Mode().Perm())
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Close(s, fd) }))
	_, err = unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	require.ErrorIs(t, err, unix.EBADF, "closed by CLOSE")

	// openat2 relative to a directory fd, RESOLVE_BENEATH.
	dfd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(dfd)
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH}
	rel := cpath(t, "new")
	fd2 := runOK(t, r, func(s *sys.SQE) error { return sqe.Openat2(s, dfd, rel, &how) })
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Close(s, fd2) }))
	esc := cpath(t, "../x")
	c := run(t, r, func(s *sys.SQE) error { return sqe.Openat2(s, dfd, esc, &how) })
	require.Equal(t, unix.EXDEV, errno(c), "RESOLVE_BENEATH refuses ..")
	runtime.KeepAlive(&how)
}

func TestExecDirect(t *testing.T) {
	r := newRing(t)
	f, name := tempFile(t, []byte("direct data"))
	registerFiles(t, r, []int32{-1, -1, -1, -1})
	path := cpath(t, name)
	buf := make([]byte, 32)
	readSlot := func(slot sqe.Slot, b []byte, off int64) sys.CQE {
		return run(t, r, func(s *sys.SQE) error {
			if err := sqe.Read(s, 0, b, off); err != nil {
				return err
			}
			return sqe.SetSlot(s, slot)
		})
	}

	// FILES_UPDATE (5.6) into slot 3, read through it.
	fds := []int32{int32(f.Fd())}
	require.Equal(t, 1, runOK(t, r, func(s *sys.SQE) error { return sqe.FilesUpdate(s, fds, 3) }))
	c := readSlot(3, buf[:4], 7)
	require.Equal(t, "data", string(buf[:c.Res]))

	// Open into slot 2 (direct descriptors: 5.15), read through it, close it.
	c = run(t, r, func(s *sys.SQE) error { return sqe.OpenatDirect(s, unix.AT_FDCWD, path, unix.O_RDONLY, 0, 2) })
	kernelHas(t, c, "direct descriptors (IORING_OP_OPENAT into a fixed slot)", "5.15", unix.EINVAL)
	require.Equal(t, int32(0), c.Res, "errno %v", errno(c))
	c = readSlot(2, buf, 0)
	require.Equal(t, "direct data", string(buf[:c.Res]))

	t.Run("FixedFdInstall", func(t *testing.T) {
		needOp(t, sys.OpFixedFdInstall) // 6.8
		fd := runOK(t, r, func(s *sys.SQE) error { return sqe.InstallFd(s, 2, 0) })
		closeLater(t, fd)
		n, err := unix.Pread(fd, buf, 7)
		require.NoError(t, err)
		require.Equal(t, "data", string(buf[:n]))
	})

	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.CloseDirect(s, 2) }))
	require.Equal(t, unix.EBADF, errno(readSlot(2, buf, 0)), "slot 2 is empty again")

	t.Run("AllocSlot", func(t *testing.T) {
		// The kernel picks a free slot and returns it (IORING_FILE_INDEX_ALLOC).
		how := unix.OpenHow{Flags: unix.O_RDONLY}
		c := run(t, r, func(s *sys.SQE) error { return sqe.Openat2Direct(s, unix.AT_FDCWD, path, &how, sqe.AllocSlot) })
		kernelHas(t, c, "IORING_FILE_INDEX_ALLOC", "5.19", unix.EINVAL)
		require.GreaterOrEqual(t, c.Res, int32(0), "errno %v", errno(c))
		slot := int(c.Res)
		require.Less(t, slot, 4)
		c = readSlot(sqe.Slot(slot), buf[:6], 0)
		require.Equal(t, "direct", string(buf[:c.Res]))

		// FILES_UPDATE with AllocSlot writes the slots back.
		fds2 := []int32{int32(f.Fd())}
		require.Equal(t, 1, runOK(t, r, func(s *sys.SQE) error { return sqe.FilesUpdate(s, fds2, sqe.AllocSlot) }))
		require.NotEqual(t, int32(f.Fd()), fds2[0], "kernel wrote the slot back")
		require.Less(t, fds2[0], int32(4))
		runtime.KeepAlive(&how)
	})
}

// pathsDir makes a directory with a file "a" and a directory "d" and
// returns its path and an O_DIRECTORY fd on it.
func pathsDir(t *testing.T) (string, int) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("A"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o750))
	dfd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	closeLater(t, dfd)
	return dir, dfd
}

// TestExecPaths runs each path opcode the kernel has (RENAMEAT and
// UNLINKAT 5.11, MKDIRAT, SYMLINKAT and LINKAT 5.15), on files set up
// with plain syscalls.
func TestExecPaths(t *testing.T) {
	r := newRing(t)
	t.Run("Mkdirat", func(t *testing.T) {
		needOp(t, sys.OpMkdirat)
		dir, dfd := pathsDir(t)
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Mkdirat(s, dfd, cpath(t, "m"), 0o750) }))
		st, err := os.Stat(filepath.Join(dir, "m"))
		require.NoError(t, err)
		require.True(t, st.IsDir())
		require.Equal(t, os.FileMode(0o750), st.Mode().Perm())
	})
	t.Run("Renameat", func(t *testing.T) {
		needOp(t, sys.OpRenameat)
		dir, dfd := pathsDir(t)
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error {
			return sqe.Renameat(s, dfd, cpath(t, "a"), unix.AT_FDCWD, cpath(t, filepath.Join(dir, "d", "b")), 0)
		}))
		_, err := os.Stat(filepath.Join(dir, "a"))
		require.ErrorIs(t, err, os.ErrNotExist)
		got, err := os.ReadFile(filepath.Join(dir, "d", "b"))
		require.NoError(t, err)
		require.Equal(t, "A", string(got))

		require.NoError(t, os.WriteFile(filepath.Join(dir, "c"), nil, 0o600))
		c := run(t, r, func(s *sys.SQE) error {
			return sqe.Renameat(s, dfd, cpath(t, "c"), dfd, cpath(t, "d/b"), unix.RENAME_NOREPLACE)
		})
		require.Equal(t, unix.EEXIST, errno(c))
	})
	t.Run("Symlinkat", func(t *testing.T) {
		needOp(t, sys.OpSymlinkat)
		dir, dfd := pathsDir(t)
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Symlinkat(s, cpath(t, "a"), dfd, cpath(t, "sym")) }))
		target, err := os.Readlink(filepath.Join(dir, "sym"))
		require.NoError(t, err)
		require.Equal(t, "a", target)
	})
	t.Run("Linkat", func(t *testing.T) {
		needOp(t, sys.OpLinkat)
		dir, dfd := pathsDir(t)
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Linkat(s, dfd, cpath(t, "a"), dfd, cpath(t, "hard"), 0) }))
		var s1, s2 unix.Stat_t
		require.NoError(t, unix.Stat(filepath.Join(dir, "a"), &s1))
		require.NoError(t, unix.Stat(filepath.Join(dir, "hard"), &s2))
		require.Equal(t, s1.Ino, s2.Ino)
		require.Equal(t, uint64(2), uint64(s1.Nlink))
	})
	t.Run("Unlinkat", func(t *testing.T) {
		needOp(t, sys.OpUnlinkat)
		dir, dfd := pathsDir(t)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "d", "b"), nil, 0o600))
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Unlinkat(s, dfd, cpath(t, "a"), 0) }))
		_, err := os.Lstat(filepath.Join(dir, "a"))
		require.ErrorIs(t, err, os.ErrNotExist)
		c := run(t, r, func(s *sys.SQE) error { return sqe.Unlinkat(s, dfd, cpath(t, "d"), unix.AT_REMOVEDIR) })
		require.Equal(t, unix.ENOTEMPTY, errno(c))
		require.NoError(t, os.Remove(filepath.Join(dir, "d", "b")))
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Unlinkat(s, dfd, cpath(t, "d"), unix.AT_REMOVEDIR) }))
		_, err = os.Stat(filepath.Join(dir, "d"))
		require.ErrorIs(t, err, os.ErrNotExist)
	})
}

// TestExecXattr sets and gets extended attributes (5.19). On a file
// system that takes no user xattrs (tmpfs before 6.6, ramfs) every one of
// them must fail as the syscalls do.
func TestExecXattr(t *testing.T) {
	r := newRing(t)
	for _, op := range []sys.Op{sys.OpFsetxattr, sys.OpSetxattr, sys.OpFgetxattr, sys.OpGetxattr} {
		needOp(t, op)
	}
	f, name := tempFile(t, nil)
	fd := int(f.Fd())
	path := cpath(t, name)
	k1, k2 := cpath(t, "user.one"), cpath(t, "user.two")
	v1, v2 := []byte("value-1"), []byte("second value")
	got := make([]byte, 64)

	if err := unix.Fsetxattr(fd, "user.probe", []byte("x"), 0); err != nil {
		_, gerr := unix.Fgetxattr(fd, "user.one", got)
		require.Error(t, gerr)
		for _, c := range []sys.CQE{
			run(t, r, func(s *sys.SQE) error { return sqe.Fsetxattr(s, fd, k1, v1, 0) }),
			run(t, r, func(s *sys.SQE) error { return sqe.Setxattr(s, path, k2, v2, 0) }),
		} {
			require.Equal(t, err, errno(c), "fsetxattr(2) says %v", err)
		}
		for _, c := range []sys.CQE{
			run(t, r, func(s *sys.SQE) error { return sqe.Fgetxattr(s, fd, k1, got) }),
			run(t, r, func(s *sys.SQE) error { return sqe.Getxattr(s, path, k1, got) }),
		} {
			require.Equal(t, gerr, errno(c), "fgetxattr(2) says %v", gerr)
		}
		return
	}

	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Fsetxattr(s, fd, k1, v1, unix.XATTR_CREATE) }))
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Setxattr(s, path, k2, v2, 0) }))
	c := run(t, r, func(s *sys.SQE) error { return sqe.Fsetxattr(s, fd, k1, v2, unix.XATTR_CREATE) })
	require.Equal(t, unix.EEXIST, errno(c))

	n := runOK(t, r, func(s *sys.SQE) error { return sqe.Fgetxattr(s, fd, k2, got) })
	require.Equal(t, v2, got[:n])
	n = runOK(t, r, func(s *sys.SQE) error { return sqe.Getxattr(s, path, k1, got) })
	require.Equal(t, v1, got[:n])
	sz, err := unix.Getxattr(name, "user.two", got)
	require.NoError(t, err)
	require.Equal(t, v2, got[:sz])
}

func TestExecSpliceTeePipe(t *testing.T) {
	r := newRing(t)
	pr, pw := pipe(t)

	// file -> pipe (splice, 5.7), pipe -> pipe2 (tee, 5.8), pipe -> file.
	src, _ := tempFile(t, []byte("spliced bytes"))
	dst, dstName := tempFile(t, nil)
	require.Equal(t, 13, runOK(t, r, func(s *sys.SQE) error { return sqe.Splice(s, int(src.Fd()), 0, pw, sqe.CurrentPos, 13, 0) }))
	p2r, p2w := pipe(t)
	require.Equal(t, 13, runOK(t, r, func(s *sys.SQE) error { return sqe.Tee(s, pr, p2w, 13, 0) }))
	require.Equal(t, 13, runOK(t, r, func(s *sys.SQE) error { return sqe.Splice(s, pr, sqe.CurrentPos, int(dst.Fd()), 4, 13, 0) }))
	got, err := os.ReadFile(dstName)
	require.NoError(t, err)
	require.Equal(t, "spliced bytes", string(got[4:]))
	teed := make([]byte, 32)
	n, err := unix.Read(p2r, teed)
	require.NoError(t, err)
	require.Equal(t, "spliced bytes", string(teed[:n]))

	// Splice with a fixed input file.
	registerFiles(t, r, []int32{-1, int32(src.Fd()), -1, -1})
	require.Equal(t, 7, runOK(t, r, func(s *sys.SQE) error { return sqe.Splice(s, 1, 0, pw, sqe.CurrentPos, 7, sys.SpliceFdInFixed) }))
	n, err = unix.Read(pr, teed)
	require.NoError(t, err)
	require.Equal(t, "spliced", string(teed[:n]))

	t.Run("Pipe", func(t *testing.T) {
		needOp(t, sys.OpPipe) // 6.16
		var fds [2]int32
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Pipe(s, &fds, 0) }))
		pr, pw := int(fds[0]), int(fds[1])
		closeLater(t, pr)
		closeLater(t, pw)
		flags, err := unix.FcntlInt(uintptr(pr), unix.F_GETFD, 0)
		require.NoError(t, err)
		require.Equal(t, unix.FD_CLOEXEC, flags&unix.FD_CLOEXEC, "Pipe adds O_CLOEXEC")
		_, err = unix.Write(pw, []byte("piped"))
		require.NoError(t, err)
		n, err := unix.Read(pr, teed)
		require.NoError(t, err)
		require.Equal(t, "piped", string(teed[:n]))

		// PipeDirect into slots the kernel picks.
		var dfds [2]int32
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.PipeDirect(s, &dfds, 0, sqe.AllocSlot) }))
		require.NotEqual(t, dfds[0], dfds[1])
		msg := []byte("through slots")
		require.Equal(t, len(msg), runOK(t, r, func(s *sys.SQE) error {
			if err := sqe.Write(s, 0, msg, sqe.CurrentPos); err != nil {
				return err
			}
			return sqe.SetSlot(s, sqe.Slot(dfds[1]))
		}))
		n = runOK(t, r, func(s *sys.SQE) error {
			if err := sqe.Read(s, 0, teed, sqe.CurrentPos); err != nil {
				return err
			}
			return sqe.SetSlot(s, sqe.Slot(dfds[0]))
		})
		require.Equal(t, msg, teed[:n])
	})
}

func TestExecProvidedBuffers(t *testing.T) {
	r := newRing(t)
	mem := make([]byte, 4*16)
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.ProvideBuffers(s, mem, 16, 4, 7, 10) }))
	f, _ := tempFile(t, []byte("provided buffer!"))
	c := run(t, r, func(s *sys.SQE) error { return sqe.ReadSelect(s, int(f.Fd()), 8, 0, 7) })
	require.Equal(t, int32(8), c.Res)
	require.NotZero(t, c.Flags&sys.CQEFBuffer)
	bid := uint16(c.Flags >> sys.CQEBufferShift)
	require.GreaterOrEqual(t, bid, uint16(10))
	require.Less(t, bid, uint16(14))
	off := int(bid-10) * 16
	require.Equal(t, "provided", string(mem[off:off+8]))

	// Three are left; remove up to 8.
	require.Equal(t, 3, runOK(t, r, func(s *sys.SQE) error { return sqe.RemoveBuffers(s, 8, 7) }))
	c = run(t, r, func(s *sys.SQE) error { return sqe.ReadSelect(s, int(f.Fd()), 8, 0, 7) })
	require.Equal(t, unix.ENOBUFS, errno(c))

	t.Run("ReadMultishot", func(t *testing.T) {
		needOp(t, sys.OpReadMultishot) // 6.7
		readMultishot(t, r, mem)
	})
}

// readMultishot reads a pipe with one READ_MULTISHOT: one CQE per write,
// F_MORE while armed, into provided buffers in mem.
func readMultishot(t *testing.T, r *uring.Ring, mem []byte) {
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.ProvideBuffers(s, mem, 16, 2, 8, 0) }))
	pr, pw := pipe(t)
	prep(t, r, 5, func(s *sys.SQE) error { return sqe.ReadMultishot(s, pr, 0, 0, 8) })
	_, err := r.Submit()
	require.NoError(t, err)
	for i, word := range []string{"one", "two"} {
		_, err := unix.Write(pw, []byte(word))
		require.NoError(t, err)
		c := wait(t, r, 1)[0]
		require.Equal(t, uint64(5), c.UserData)
		require.Equal(t, int32(len(word)), c.Res, "CQE %d", i)
		require.NotZero(t, c.Flags&sys.CQEFMore)
		bid := int(c.Flags >> sys.CQEBufferShift)
		require.Equal(t, word, string(mem[bid*16:bid*16+len(word)]))
	}
	// No buffers left: the next write ends the multishot with ENOBUFS.
	_, err = unix.Write(pw, []byte("three"))
	require.NoError(t, err)
	c := wait(t, r, 1)[0]
	require.Equal(t, unix.ENOBUFS, errno(c))
	require.Zero(t, c.Flags&sys.CQEFMore)
	runtime.KeepAlive(mem)
}
