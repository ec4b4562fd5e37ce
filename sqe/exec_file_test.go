//go:build linux

package sqe_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestExecNop(t *testing.T) {
	r := newRing(t)
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { sqe.Nop(s); return nil }))
	c := run(t, r, func(s *sys.SQE) error { sqe.NopResult(s, -int32(unix.EPERM)); return nil })
	require.Equal(t, unix.EPERM, errno(c))
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
	require.Equal(t, 3, runOK(t, r, func(s *sys.SQE) error { return sqe.Readv2(s, fd, riov2, 0, unix.RWF_NOWAIT) }))
	require.Equal(t, "hel", string(c))

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

	needOp(t, r, sys.OpWritevFixed)
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
	got, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	require.Equal(t, "abcd", string(got[50:54]))
	runtime.KeepAlive(b0)
	runtime.KeepAlive(b1)
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
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Ftruncate(s, fd, 5) }))
	st, err = f.Stat()
	require.NoError(t, err)
	require.Equal(t, int64(5), st.Size())

	mem, err := unix.Mmap(-1, 0, 1<<16, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	defer unix.Munmap(mem)
	mem[0] = 1
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Madvise(s, mem, unix.MADV_DONTNEED) }))
	require.Zero(t, mem[0], "MADV_DONTNEED drops private anonymous pages")
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

	// Open into slot 2, read through it, install it as an fd, close it.
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.OpenatDirect(s, unix.AT_FDCWD, path, unix.O_RDONLY, 0, 2) }))
	buf := make([]byte, 32)
	n := runOK(t, r, func(s *sys.SQE) error {
		if err := sqe.Read(s, 0, buf, 0); err != nil {
			return err
		}
		return sqe.FixedFile(s, 2)
	})
	require.Equal(t, "direct data", string(buf[:n]))

	fd := runOK(t, r, func(s *sys.SQE) error { return sqe.FixedFdInstall(s, 2, 0) })
	closeLater(t, fd)
	n, err := unix.Pread(fd, buf, 7)
	require.NoError(t, err)
	require.Equal(t, "data", string(buf[:n]))
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.CloseDirect(s, 2) }))
	c := run(t, r, func(s *sys.SQE) error {
		if err := sqe.Read(s, 0, buf, 0); err != nil {
			return err
		}
		return sqe.FixedFile(s, 2)
	})
	require.Equal(t, unix.EBADF, errno(c), "slot 2 is empty again")

	// AllocSlot: the kernel picks a free slot and returns it.
	how := unix.OpenHow{Flags: unix.O_RDONLY}
	slot := runOK(t, r, func(s *sys.SQE) error { return sqe.Openat2Direct(s, unix.AT_FDCWD, path, &how, sqe.AllocSlot) })
	require.Less(t, slot, 4)
	n = runOK(t, r, func(s *sys.SQE) error {
		if err := sqe.Read(s, 0, buf[:6], 0); err != nil {
			return err
		}
		return sqe.FixedFile(s, sqe.Slot(slot))
	})
	require.Equal(t, "direct", string(buf[:n]))

	// FILES_UPDATE into slot 3, then with AllocSlot (slots written back).
	fds := []int32{int32(f.Fd())}
	require.Equal(t, 1, runOK(t, r, func(s *sys.SQE) error { return sqe.FilesUpdate(s, fds, 3) }))
	n = runOK(t, r, func(s *sys.SQE) error {
		if err := sqe.Read(s, 0, buf[:4], 7); err != nil {
			return err
		}
		return sqe.FixedFile(s, 3)
	})
	require.Equal(t, "data", string(buf[:n]))
	fds2 := []int32{int32(f.Fd())}
	require.Equal(t, 1, runOK(t, r, func(s *sys.SQE) error { return sqe.FilesUpdate(s, fds2, sqe.AllocSlot) }))
	require.NotEqual(t, int32(f.Fd()), fds2[0], "kernel wrote the slot back")
	require.Less(t, fds2[0], int32(4))
	runtime.KeepAlive(&how)
}

func TestExecPaths(t *testing.T) {
	r := newRing(t)
	dir := t.TempDir()
	dfd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(dfd)

	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Mkdirat(s, dfd, cpath(t, "d"), 0o750) }))
	st, err := os.Stat(filepath.Join(dir, "d"))
	require.NoError(t, err)
	require.True(t, st.IsDir())
	require.Equal(t, os.FileMode(0o750), st.Mode().Perm())

	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("A"), 0o600))
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error {
		return sqe.Renameat(s, dfd, cpath(t, "a"), unix.AT_FDCWD, cpath(t, filepath.Join(dir, "d", "b")), 0)
	}))
	_, err = os.Stat(filepath.Join(dir, "a"))
	require.ErrorIs(t, err, os.ErrNotExist)
	got, err := os.ReadFile(filepath.Join(dir, "d", "b"))
	require.NoError(t, err)
	require.Equal(t, "A", string(got))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "c"), nil, 0o600))
	c := run(t, r, func(s *sys.SQE) error {
		return sqe.Renameat(s, dfd, cpath(t, "c"), dfd, cpath(t, "d/b"), unix.RENAME_NOREPLACE)
	})
	require.Equal(t, unix.EEXIST, errno(c))

	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Symlinkat(s, cpath(t, "d/b"), dfd, cpath(t, "sym")) }))
	target, err := os.Readlink(filepath.Join(dir, "sym"))
	require.NoError(t, err)
	require.Equal(t, "d/b", target)

	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Linkat(s, dfd, cpath(t, "d/b"), dfd, cpath(t, "hard"), 0) }))
	var s1, s2 unix.Stat_t
	require.NoError(t, unix.Stat(filepath.Join(dir, "d", "b"), &s1))
	require.NoError(t, unix.Stat(filepath.Join(dir, "hard"), &s2))
	require.Equal(t, s1.Ino, s2.Ino)
	require.Equal(t, uint64(2), uint64(s1.Nlink))

	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Unlinkat(s, dfd, cpath(t, "hard"), 0) }))
	_, err = os.Lstat(filepath.Join(dir, "hard"))
	require.ErrorIs(t, err, os.ErrNotExist)
	c = run(t, r, func(s *sys.SQE) error { return sqe.Unlinkat(s, dfd, cpath(t, "d"), unix.AT_REMOVEDIR) })
	require.Equal(t, unix.ENOTEMPTY, errno(c))
	require.NoError(t, os.Remove(filepath.Join(dir, "d", "b")))
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Unlinkat(s, dfd, cpath(t, "d"), unix.AT_REMOVEDIR) }))
	_, err = os.Stat(filepath.Join(dir, "d"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestExecXattr(t *testing.T) {
	r := newRing(t)
	f, name := tempFile(t, nil)
	if err := unix.Fsetxattr(int(f.Fd()), "user.probe", []byte("x"), 0); err == unix.ENOTSUP {
		dir, err := os.MkdirTemp("/dev/shm", "sqe")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(dir) })
		name = filepath.Join(dir, "f")
		require.NoError(t, os.WriteFile(name, nil, 0o600))
		f, err = os.OpenFile(name, os.O_RDWR, 0)
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		if err := unix.Fsetxattr(int(f.Fd()), "user.probe", []byte("x"), 0); err == unix.ENOTSUP {
			t.Skip("no filesystem here takes user xattrs (ENOTSUP)")
		}
	}
	fd := int(f.Fd())
	path := cpath(t, name)
	k1, k2 := cpath(t, "user.one"), cpath(t, "user.two")
	v1, v2 := []byte("value-1"), []byte("second value")

	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Fsetxattr(s, fd, k1, v1, unix.XATTR_CREATE) }))
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Setxattr(s, path, k2, v2, 0) }))
	c := run(t, r, func(s *sys.SQE) error { return sqe.Fsetxattr(s, fd, k1, v2, unix.XATTR_CREATE) })
	require.Equal(t, unix.EEXIST, errno(c))

	got := make([]byte, 64)
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
	needOp(t, r, sys.OpPipe)
	var fds [2]int32
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Pipe(s, &fds, 0) }))
	pr, pw := int(fds[0]), int(fds[1])
	closeLater(t, pr)
	closeLater(t, pw)
	flags, err := unix.FcntlInt(uintptr(pr), unix.F_GETFD, 0)
	require.NoError(t, err)
	require.Equal(t, unix.FD_CLOEXEC, flags&unix.FD_CLOEXEC, "Pipe adds O_CLOEXEC")

	// file -> pipe (splice), pipe -> pipe2 (tee), pipe -> file (splice).
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

	// PipeDirect into slots the kernel picks.
	var dfds [2]int32
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.PipeDirect(s, &dfds, 0, sqe.AllocSlot) }))
	require.NotEqual(t, dfds[0], dfds[1])
	msg := []byte("through slots")
	require.Equal(t, len(msg), runOK(t, r, func(s *sys.SQE) error {
		if err := sqe.Write(s, 0, msg, sqe.CurrentPos); err != nil {
			return err
		}
		return sqe.FixedFile(s, sqe.Slot(dfds[1]))
	}))
	n = runOK(t, r, func(s *sys.SQE) error {
		if err := sqe.Read(s, 0, teed, sqe.CurrentPos); err != nil {
			return err
		}
		return sqe.FixedFile(s, sqe.Slot(dfds[0]))
	})
	require.Equal(t, msg, teed[:n])
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

	// Multishot read from a pipe: one CQE per write, F_MORE while armed.
	needOp(t, r, sys.OpReadMultishot)
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
	c = wait(t, r, 1)[0]
	require.Equal(t, unix.ENOBUFS, errno(c))
	require.Zero(t, c.Flags&sys.CQEFMore)
	runtime.KeepAlive(mem)
}
