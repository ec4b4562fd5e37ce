//go:build linux

package task

import (
	"errors"
	"math"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// CurrentPos as an offset reads or writes at the file position.
const CurrentPos int64 = -1

func checkLen(fn string, n int) error {
	if uint64(n) > math.MaxUint32 {
		return &ArgError{fn, "len(buf)", "exceeds 32 bits"}
	}
	return nil
}

func checkFd(fn string, fd int) error {
	if fd < 0 || fd > math.MaxInt32 {
		return &ArgError{fn, "fd", "is not a valid descriptor"}
	}
	return nil
}

// Nop awaits a NOP (io_uring_prep_nop, 5.1).
func (t *T) Nop() error {
	s, sl, err := t.start("nop", -1)
	if err != nil {
		return err
	}
	s.Opcode, s.Fd = sys.OpNop, -1
	_, _, err = t.wait(s, sl, "nop", -1)
	return err
}

func (t *T) rw(name string, op sys.Op, fd int, buf []byte, off int64, flags sys.SQEFlags, bufIndex uint16) (int, error) {
	if err := checkLen(name, len(buf)); err != nil {
		return 0, err
	}
	s, sl, err := t.start(name, fd)
	if err != nil {
		return 0, err
	}
	s.Opcode, s.Fd, s.Flags = op, int32(fd), flags
	s.Addr, s.Len, s.Off, s.BufIndex = sys.SliceAddr(buf), uint32(len(buf)), uint64(off), bufIndex
	sl.buf = buf
	sl.pinBytes(buf)
	res, _, err := t.wait(s, sl, name, fd)
	return int(res), err
}

// Read reads into buf at off (CurrentPos: the file position), returning
// the byte count (IORING_OP_READ, 5.6). 0 means end of file.
func (t *T) Read(fd int, buf []byte, off int64) (int, error) {
	if err := checkFd("Read", fd); err != nil {
		return 0, err
	}
	return t.rw("read", sys.OpRead, fd, buf, off, 0, 0)
}

// Write writes buf at off (IORING_OP_WRITE, 5.6).
func (t *T) Write(fd int, buf []byte, off int64) (int, error) {
	if err := checkFd("Write", fd); err != nil {
		return 0, err
	}
	return t.rw("write", sys.OpWrite, fd, buf, off, 0, 0)
}

// ReadFixed reads into buf, which lies in registered buffer bufIndex
// (IORING_OP_READ_FIXED, 5.1).
func (t *T) ReadFixed(fd int, buf []byte, off int64, bufIndex uint16) (int, error) {
	return t.rw("read_fixed", sys.OpReadFixed, fd, buf, off, 0, bufIndex)
}

// WriteFixed writes buf, which lies in registered buffer bufIndex
// (IORING_OP_WRITE_FIXED, 5.1).
func (t *T) WriteFixed(fd int, buf []byte, off int64, bufIndex uint16) (int, error) {
	return t.rw("write_fixed", sys.OpWriteFixed, fd, buf, off, 0, bufIndex)
}

// ReadSlot reads from the registered (fixed) file in slot.
func (t *T) ReadSlot(slot sqe.Slot, buf []byte, off int64) (int, error) {
	return t.rw("read", sys.OpRead, int(slot), buf, off, sys.SQEFixedFile, 0)
}

// WriteSlot writes to the registered (fixed) file in slot.
func (t *T) WriteSlot(slot sqe.Slot, buf []byte, off int64) (int, error) {
	return t.rw("write", sys.OpWrite, int(slot), buf, off, sys.SQEFixedFile, 0)
}

// fillIov builds the slot's iovec array for bufs (reused: no allocation
// once it is large enough) and pins every buffer.
func (sl *opSlot) fillIov(bufs [][]byte) []unix.Iovec {
	if cap(sl.iov) < len(bufs) {
		sl.iov = make([]unix.Iovec, len(bufs))
	}
	iov := sl.iov[:len(bufs)]
	for i, b := range bufs {
		iov[i] = unix.Iovec{}
		if len(b) > 0 {
			iov[i].Base = &b[0]
			iov[i].SetLen(len(b))
			sl.pin.Pin(&b[0])
			sl.pinned = true
		}
	}
	sl.bufs = bufs
	if len(iov) > 0 {
		sl.pinPtr(&iov[0])
	}
	return iov
}

func (t *T) rwv(name string, op sys.Op, fd int, bufs [][]byte, off int64, flags uint32) (int, error) {
	if err := checkFd(name, fd); err != nil {
		return 0, err
	}
	if len(bufs) > maxIov {
		return 0, &ArgError{name, "len(bufs)", "exceeds IOV_MAX (1024)"}
	}
	s, sl, err := t.start(name, fd)
	if err != nil {
		return 0, err
	}
	iov := sl.fillIov(bufs)
	s.Opcode, s.Fd, s.Addr, s.Len, s.Off, s.OpFlags = op, int32(fd), sys.SliceAddr(iov), uint32(len(iov)), uint64(off), flags
	res, _, err := t.wait(s, sl, name, fd)
	return int(res), err
}

// Readv reads into bufs at off (IORING_OP_READV, 5.1).
func (t *T) Readv(fd int, bufs [][]byte, off int64) (int, error) {
	return t.rwv("readv", sys.OpReadv, fd, bufs, off, 0)
}

// Writev writes bufs at off (IORING_OP_WRITEV, 5.1).
func (t *T) Writev(fd int, bufs [][]byte, off int64) (int, error) {
	return t.rwv("writev", sys.OpWritev, fd, bufs, off, 0)
}

// path stores p NUL-terminated in dst (reused) after checking it.
func cpath(fn, arg string, dst []byte, p string) ([]byte, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return dst, &ArgError{fn, arg, "contains a NUL byte"}
	}
	dst = append(dst[:0], p...)
	return append(dst, 0), nil
}

// pathOp starts an op on a path; the path lives in the slot.
func (t *T) pathOp(name, arg string, p string) (*sys.SQE, *opSlot, error) {
	s, sl, err := t.start(name, -1)
	if err != nil {
		return nil, nil, err
	}
	if sl.path, err = cpath(name, arg, sl.path, p); err != nil {
		// The SQE is handed out: send a NOP; its CQE frees the slot.
		*s = sys.SQE{Opcode: sys.OpNop, Fd: -1, UserData: s.UserData}
		return nil, nil, err
	}
	sl.pinBytes(sl.path)
	return s, sl, nil
}

// Openat opens path relative to dirfd (unix.AT_FDCWD for the working
// directory) and returns the new fd (IORING_OP_OPENAT, 5.6). O_CLOEXEC is
// added. If the task's context is cancelled and the open completes anyway,
// the fd is closed.
func (t *T) Openat(dirfd int, path string, flags int, mode uint32) (int, error) {
	s, sl, err := t.pathOp("openat", "path", path)
	if err != nil {
		return -1, err
	}
	s.Opcode, s.Fd, s.Addr, s.Len, s.OpFlags = sys.OpOpenat, int32(dirfd), sys.SliceAddr(sl.path), mode, uint32(flags|unix.O_CLOEXEC)
	sl.kind |= slotFdResult
	res, _, err := t.wait(s, sl, "openat", dirfd)
	if err != nil {
		return -1, err
	}
	return int(res), nil
}

// Open is Openat relative to the working directory.
func (t *T) Open(path string, flags int, mode uint32) (int, error) {
	return t.Openat(unix.AT_FDCWD, path, flags, mode)
}

// Close closes fd (IORING_OP_CLOSE, 5.6). It runs even when the task's
// context is cancelled, and while the executor closes.
func (t *T) Close(fd int) error {
	if err := checkFd("Close", fd); err != nil {
		return err
	}
	s, sl, err := t.sqe(1)
	if err != nil {
		return &OpError{"close", fd, err}
	}
	s.Opcode, s.Fd = sys.OpClose, int32(fd)
	saved := t.hasDeadline
	t.hasDeadline = false
	_, _, err = t.wait(s, sl, "close", fd)
	t.hasDeadline = saved
	return err
}

// Statx fills st for path relative to dirfd (IORING_OP_STATX, 5.6).
func (t *T) Statx(dirfd int, path string, flags int, mask uint32, st *unix.Statx_t) error {
	if st == nil {
		return &ArgError{"Statx", "st", "is nil"}
	}
	s, sl, err := t.pathOp("statx", "path", path)
	if err != nil {
		return err
	}
	sl.ptr = st
	sl.pinPtr(st)
	s.Opcode, s.Fd, s.Addr, s.Len, s.OpFlags, s.Off = sys.OpStatx, int32(dirfd), sys.SliceAddr(sl.path), mask, uint32(flags), sys.PtrAddr(st)
	_, _, err = t.wait(s, sl, "statx", dirfd)
	return err
}

func (t *T) simple(name string, op sys.Op, fd int, off uint64, n uint32, addr uint64, flags uint32) (int32, error) {
	s, sl, err := t.start(name, fd)
	if err != nil {
		return 0, err
	}
	s.Opcode, s.Fd, s.Off, s.Len, s.Addr, s.OpFlags = op, int32(fd), off, n, addr, flags
	res, _, err := t.wait(s, sl, name, fd)
	return res, err
}

// Fsync flushes fd (IORING_OP_FSYNC, 5.1); flags may be
// sys.FsyncDatasync.
func (t *T) Fsync(fd int, flags uint32) error {
	_, err := t.simple("fsync", sys.OpFsync, fd, 0, 0, 0, flags)
	return err
}

// Fallocate allocates [off, off+length) of fd (IORING_OP_FALLOCATE, 5.6).
func (t *T) Fallocate(fd int, mode uint32, off, length int64) error {
	if off < 0 || length < 0 {
		return &ArgError{"Fallocate", "off/length", "is negative"}
	}
	_, err := t.simple("fallocate", sys.OpFallocate, fd, uint64(off), mode, uint64(length), 0)
	return err
}

// Unlinkat removes path (unix.AT_REMOVEDIR for a directory)
// (IORING_OP_UNLINKAT, 5.11).
func (t *T) Unlinkat(dirfd int, path string, flags int) error {
	s, sl, err := t.pathOp("unlinkat", "path", path)
	if err != nil {
		return err
	}
	s.Opcode, s.Fd, s.Addr, s.OpFlags = sys.OpUnlinkat, int32(dirfd), sys.SliceAddr(sl.path), uint32(flags)
	_, _, err = t.wait(s, sl, "unlinkat", dirfd)
	return err
}

// Mkdirat creates directory path (IORING_OP_MKDIRAT, 5.15).
func (t *T) Mkdirat(dirfd int, path string, mode uint32) error {
	s, sl, err := t.pathOp("mkdirat", "path", path)
	if err != nil {
		return err
	}
	s.Opcode, s.Fd, s.Addr, s.Len = sys.OpMkdirat, int32(dirfd), sys.SliceAddr(sl.path), mode
	_, _, err = t.wait(s, sl, "mkdirat", dirfd)
	return err
}

// Renameat renames oldpath to newpath (IORING_OP_RENAMEAT, 5.11).
func (t *T) Renameat(olddirfd int, oldpath string, newdirfd int, newpath string, flags uint32) error {
	s, sl, err := t.pathOp("renameat", "oldpath", oldpath)
	if err != nil {
		return err
	}
	if sl.path2, err = cpath("renameat", "newpath", sl.path2, newpath); err != nil {
		*s = sys.SQE{Opcode: sys.OpNop, Fd: -1, UserData: s.UserData}
		return err
	}
	sl.pinBytes(sl.path2)
	s.Opcode, s.Fd, s.Addr, s.Len, s.Off, s.OpFlags = sys.OpRenameat, int32(olddirfd), sys.SliceAddr(sl.path), uint32(newdirfd), sys.SliceAddr(sl.path2), flags
	_, _, err = t.wait(s, sl, "renameat", olddirfd)
	return err
}

// Splice moves up to n bytes from fdIn to fdOut (offsets -1 for pipes)
// (IORING_OP_SPLICE, 5.7).
func (t *T) Splice(fdIn int, offIn int64, fdOut int, offOut int64, n uint32, flags uint32) (int, error) {
	s, sl, err := t.start("splice", fdOut)
	if err != nil {
		return 0, err
	}
	s.Opcode, s.Fd, s.Off, s.Addr, s.Len, s.OpFlags, s.FileIndex = sys.OpSplice, int32(fdOut), uint64(offOut), uint64(offIn), n, flags, uint32(fdIn)
	res, _, err := t.wait(s, sl, "splice", fdOut)
	return int(res), err
}

// Poll waits until fd has one of events (unix.POLLIN ...) and returns the
// events that are ready (IORING_OP_POLL_ADD, 5.1).
func (t *T) Poll(fd int, events uint32) (uint32, error) {
	res, err := t.simple("poll_add", sys.OpPollAdd, fd, 0, 0, 0, events)
	return uint32(res), err
}

// Sleep parks the task for d (IORING_OP_TIMEOUT, 5.4); a cancelled context
// ends it early with the context's error.
func (t *T) Sleep(d time.Duration) error {
	if d < 0 {
		d = 0
	}
	if err := t.check(); err != nil {
		return &OpError{"timeout", -1, err}
	}
	s, sl, err := t.sqe(1)
	if err != nil {
		return &OpError{"timeout", -1, err}
	}
	sl.ts = sys.Timespec{Sec: int64(d / time.Second), Nsec: int64(d % time.Second)}
	s.Opcode, s.Fd, s.Addr, s.Len = sys.OpTimeout, -1, sys.PtrAddr(&sl.ts), 1
	saved := t.hasDeadline
	t.hasDeadline = false
	_, _, err = t.wait(s, sl, "timeout", -1)
	t.hasDeadline = saved
	if err != nil && errors.Is(err, unix.ETIME) {
		return nil
	}
	return err
}

// maxIov is UIO_MAXIOV.
const maxIov = 1024
