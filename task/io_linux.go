//go:build linux

package task

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// Every SQE is filled by the builder of package sqe for its op, which also
// checks the arguments; this file keeps what the kernel may use (buffers,
// iovecs, paths) referenced and pinned in the op's slot.

// Nop awaits a NOP (io_uring_prep_nop, 5.1).
func (t *T) Nop() error {
	if t.ex.fb != nil {
		return t.fbNop()
	}
	s, sl, err := t.start("nop", -1)
	if err != nil {
		return err
	}
	sqe.Nop(s)
	_, _, err = t.wait(s, sl, "nop", -1)
	return err
}

// rwKind selects the builder of rw.
type rwKind uint8

const (
	rwRead rwKind = iota
	rwWrite
	rwReadFixed
	rwWriteFixed
	rwReadCached // a Read named after ReadCached
)

var rwNames = [...]struct{ fn, op string }{
	rwRead:       {"Read", "read"},
	rwWrite:      {"Write", "write"},
	rwReadFixed:  {"ReadFixed", "read_fixed"},
	rwWriteFixed: {"WriteFixed", "write_fixed"},
	rwReadCached: {"ReadCached", "read"},
}

// rw awaits a read or write of buf; fixed retargets it to a registered
// file slot (fd is then the slot).
func (t *T) rw(kind rwKind, fd int, buf []byte, off int64, bufIndex uint16, fixed bool) (int, error) {
	nm := &rwNames[kind]
	s, sl, err := t.start(nm.op, fd)
	if err != nil {
		return 0, err
	}
	switch kind {
	case rwRead, rwReadCached:
		err = sqe.Read(s, fd, buf, off)
	case rwWrite:
		err = sqe.Write(s, fd, buf, off)
	case rwReadFixed:
		err = sqe.ReadFixed(s, fd, buf, off, bufIndex)
	default:
		err = sqe.WriteFixed(s, fd, buf, off, bufIndex)
	}
	if err == nil && fixed {
		err = sqe.FixedFile(s, sqe.Slot(fd))
	}
	if err != nil {
		return 0, t.abandon(s, sl, nm.fn, err)
	}
	sl.keepBytes(buf)
	res, _, err := t.wait(s, sl, nm.op, fd)
	return int(res), err
}

// Read reads into buf at off (CurrentPos: the file position), returning
// the byte count (IORING_OP_READ, 5.6). 0 means end of file. Bytes a
// multishot loop of fd consumed and did not yield come first (see the
// multishot rules).
func (t *T) Read(fd int, buf []byte, off int64) (int, error) {
	if t.ex.fb != nil {
		return t.fbRW("Read", "read", fd, buf, off, false)
	}
	if len(t.ex.kept) != 0 { // bytes a multishot loop read and did not yield
		if n := t.ex.takeKept(fd, buf, false); n > 0 {
			return n, nil
		}
	}
	return t.rw(rwRead, fd, buf, off, 0, false)
}

// ReadCached is Read for a buffered (not O_DIRECT) file whose data is
// likely in the page cache. When the read would go to the kernel alone
// (no other task runnable, nothing queued in the SQ), it is first tried
// with preadv2(RWF_NOWAIT) on the executor's thread: a cache hit then
// costs one plain system call instead of an io_uring round trip, whose
// enter dominates small reads (1.3-1.5x the time of pread here). A miss
// (EAGAIN), any error (the ring's answer is the one reported) and every
// read while other work is pending take the ring as Read does, so
// batches stay batches. Do not use it on O_DIRECT files: RWF_NOWAIT does
// not stop those from waiting for the device, on the executor's thread.
func (t *T) ReadCached(fd int, buf []byte, off int64) (int, error) {
	if t.ex.fb != nil {
		return t.fbRW("ReadCached", "read", fd, buf, off, false)
	}
	if len(buf) > 0 && t.alone() && t.direct() {
		if n, err := fdio.PreadNowait(fd, buf, off); err == nil {
			t.ex.stats.cacheHits++
			t.ex.countOp(classFile, true)
			return n, nil
		}
	}
	return t.rw(rwReadCached, fd, buf, off, 0, false)
}

// alone reports whether an op of t would be the only one in its submit:
// nothing else runnable on the executor and nothing queued in the SQ.
func (t *T) alone() bool {
	return !t.ex.runnable() && t.ex.ring.SQReady() == 0
}

// Write writes buf at off (IORING_OP_WRITE, 5.6).
func (t *T) Write(fd int, buf []byte, off int64) (int, error) {
	if t.ex.fb != nil {
		return t.fbRW("Write", "write", fd, buf, off, true)
	}
	return t.rw(rwWrite, fd, buf, off, 0, false)
}

// ReadFixed reads into buf, which lies in registered buffer bufIndex
// (IORING_OP_READ_FIXED, 5.1).
func (t *T) ReadFixed(fd int, buf []byte, off int64, bufIndex uint16) (int, error) {
	if t.ex.fb != nil {
		return 0, unsupportedOp("read_fixed", "a registered buffer")
	}
	return t.rw(rwReadFixed, fd, buf, off, bufIndex, false)
}

// WriteFixed writes buf, which lies in registered buffer bufIndex
// (IORING_OP_WRITE_FIXED, 5.1).
func (t *T) WriteFixed(fd int, buf []byte, off int64, bufIndex uint16) (int, error) {
	if t.ex.fb != nil {
		return 0, unsupportedOp("write_fixed", "a registered buffer")
	}
	return t.rw(rwWriteFixed, fd, buf, off, bufIndex, false)
}

// ReadSlot reads from the registered (fixed) file in slot.
func (t *T) ReadSlot(slot sqe.Slot, buf []byte, off int64) (int, error) {
	if t.ex.fb != nil {
		return 0, unsupportedOp("read", "a registered file")
	}
	return t.rw(rwRead, int(slot), buf, off, 0, true)
}

// WriteSlot writes to the registered (fixed) file in slot.
func (t *T) WriteSlot(slot sqe.Slot, buf []byte, off int64) (int, error) {
	if t.ex.fb != nil {
		return 0, unsupportedOp("write", "a registered file")
	}
	return t.rw(rwWrite, int(slot), buf, off, 0, true)
}

// fillIov builds the slot's iovec array for bufs (reused: no allocation
// once it is large enough) and pins every buffer and the array.
func (sl *opSlot) fillIov(bufs [][]byte) ([]unix.Iovec, error) {
	sl.heavy = true
	iov, err := sqe.Iovecs(sl.iov, bufs)
	if err != nil {
		return nil, err
	}
	sl.iov = iov
	for _, b := range bufs {
		sl.pinBytes(b)
	}
	sl.bufs = bufs
	if len(iov) > 0 {
		sl.pinPtr(&iov[0])
	}
	return iov, nil
}

// rwv awaits a vectored read (write false) or write.
func (t *T) rwv(fn, name string, write bool, fd int, bufs [][]byte, off int64) (int, error) {
	s, sl, err := t.start(name, fd)
	if err != nil {
		return 0, err
	}
	iov, err := sl.fillIov(bufs)
	if err == nil {
		if write {
			err = sqe.Writev(s, fd, iov, off)
		} else {
			err = sqe.Readv(s, fd, iov, off)
		}
	}
	if err != nil {
		return 0, t.abandon(s, sl, fn, err)
	}
	res, _, err := t.wait(s, sl, name, fd)
	return int(res), err
}

// Readv reads into bufs at off (IORING_OP_READV, 5.1).
func (t *T) Readv(fd int, bufs [][]byte, off int64) (int, error) {
	if t.ex.fb != nil {
		return t.fbVec("Readv", "readv", fd, bufs, off, false)
	}
	return t.rwv("Readv", "readv", false, fd, bufs, off)
}

// Writev writes bufs at off (IORING_OP_WRITEV, 5.1).
func (t *T) Writev(fd int, bufs [][]byte, off int64) (int, error) {
	if t.ex.fb != nil {
		return t.fbVec("Writev", "writev", fd, bufs, off, true)
	}
	return t.rwv("Writev", "writev", true, fd, bufs, off)
}

// pathOp starts an op on path p: the NUL-terminated copy lives (pinned)
// in the slot. A bad path is rejected before any SQE is taken.
func (t *T) pathOp(fn, name string, fd int, p string) (*sys.SQE, *opSlot, error) {
	sl, err := t.slot(name, fd)
	if err != nil {
		return nil, nil, err
	}
	if sl.path, err = sqe.AppendPath(sl.path[:0], p); err != nil {
		t.ex.freeSlot(sl)
		return nil, nil, pathErr(fn, "path", err)
	}
	sl.pinBytes(sl.path)
	s, err := t.sqeFor(sl, name, fd)
	if err != nil {
		return nil, nil, err
	}
	return s, sl, nil
}

// pathErr names the path argument arg of fn in AppendPath's error.
func pathErr(fn, arg string, err error) error {
	var e *sqe.ArgError
	if errors.As(err, &e) {
		return argError(fn, arg, e.Reason)
	}
	return err
}

// Openat opens path relative to dirfd (unix.AT_FDCWD for the working
// directory) and returns the new fd (IORING_OP_OPENAT, 5.6). O_CLOEXEC is
// added. If the task's context is cancelled and the open completes anyway,
// the fd is closed.
func (t *T) Openat(dirfd int, path string, flags int, mode uint32) (int, error) {
	if t.ex.fb != nil {
		return t.fbOpenat(dirfd, path, flags, mode)
	}
	s, sl, err := t.pathOp("Openat", "openat", dirfd, path)
	if err != nil {
		return -1, err
	}
	if err := sqe.Openat(s, dirfd, sl.path, flags, mode); err != nil {
		return -1, t.abandon(s, sl, "Openat", err)
	}
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
	if t.ex.fb != nil {
		return t.fbClose(fd)
	}
	t.ex.dropKept(fd)
	s, sl, err := t.startAlways("close", fd)
	if err != nil {
		return err
	}
	if err := sqe.Close(s, fd); err != nil {
		return t.abandon(s, sl, "Close", err)
	}
	saved := t.hasDeadline
	t.hasDeadline = false
	_, _, err = t.wait(s, sl, "close", fd)
	t.hasDeadline = saved
	return err
}

// Statx fills st for path relative to dirfd (IORING_OP_STATX, 5.6).
func (t *T) Statx(dirfd int, path string, flags int, mask uint32, st *unix.Statx_t) error {
	if st == nil {
		return argError("Statx", "st", "is nil")
	}
	if t.ex.fb != nil {
		return t.fbStatx(dirfd, path, flags, mask, st)
	}
	s, sl, err := t.pathOp("Statx", "statx", dirfd, path)
	if err != nil {
		return err
	}
	if err := sqe.Statx(s, dirfd, sl.path, flags, mask, st); err != nil {
		return t.abandon(s, sl, "Statx", err)
	}
	sl.ptr, sl.heavy = st, true
	sl.pinPtr(st)
	_, _, err = t.wait(s, sl, "statx", dirfd)
	return err
}

// Fsync flushes fd (IORING_OP_FSYNC, 5.1); flags may be
// sys.FsyncDatasync.
func (t *T) Fsync(fd int, flags uint32) error {
	if t.ex.fb != nil {
		return t.fbFsync(fd, flags)
	}
	s, sl, err := t.start("fsync", fd)
	if err != nil {
		return err
	}
	if err := sqe.Fsync(s, fd, flags); err != nil {
		return t.abandon(s, sl, "Fsync", err)
	}
	_, _, err = t.wait(s, sl, "fsync", fd)
	return err
}

// Fallocate allocates [off, off+length) of fd (IORING_OP_FALLOCATE, 5.6).
func (t *T) Fallocate(fd int, mode uint32, off, length int64) error {
	if t.ex.fb != nil {
		return t.fbFallocate(fd, mode, off, length)
	}
	s, sl, err := t.start("fallocate", fd)
	if err != nil {
		return err
	}
	if err := sqe.Fallocate(s, fd, mode, off, length); err != nil {
		return t.abandon(s, sl, "Fallocate", err)
	}
	_, _, err = t.wait(s, sl, "fallocate", fd)
	return err
}

// Unlinkat removes path (unix.AT_REMOVEDIR for a directory)
// (IORING_OP_UNLINKAT, 5.11).
func (t *T) Unlinkat(dirfd int, path string, flags int) error {
	if t.ex.fb != nil {
		return t.fbUnlinkat(dirfd, path, flags)
	}
	s, sl, err := t.pathOp("Unlinkat", "unlinkat", dirfd, path)
	if err != nil {
		return err
	}
	if err := sqe.Unlinkat(s, dirfd, sl.path, flags); err != nil {
		return t.abandon(s, sl, "Unlinkat", err)
	}
	_, _, err = t.wait(s, sl, "unlinkat", dirfd)
	return err
}

// Mkdirat creates directory path (IORING_OP_MKDIRAT, 5.15).
func (t *T) Mkdirat(dirfd int, path string, mode uint32) error {
	if t.ex.fb != nil {
		return t.fbMkdirat(dirfd, path, mode)
	}
	s, sl, err := t.pathOp("Mkdirat", "mkdirat", dirfd, path)
	if err != nil {
		return err
	}
	if err := sqe.Mkdirat(s, dirfd, sl.path, mode); err != nil {
		return t.abandon(s, sl, "Mkdirat", err)
	}
	_, _, err = t.wait(s, sl, "mkdirat", dirfd)
	return err
}

// Renameat renames oldpath to newpath (IORING_OP_RENAMEAT, 5.11).
func (t *T) Renameat(olddirfd int, oldpath string, newdirfd int, newpath string, flags uint32) error {
	if t.ex.fb != nil {
		return t.fbRenameat(olddirfd, oldpath, newdirfd, newpath, flags)
	}
	sl, err := t.slot("renameat", olddirfd)
	if err != nil {
		return err
	}
	if sl.path, err = sqe.AppendPath(sl.path[:0], oldpath); err != nil {
		t.ex.freeSlot(sl)
		return pathErr("Renameat", "oldpath", err)
	}
	if sl.path2, err = sqe.AppendPath(sl.path2[:0], newpath); err != nil {
		t.ex.freeSlot(sl)
		return pathErr("Renameat", "newpath", err)
	}
	sl.pinBytes(sl.path)
	sl.pinBytes(sl.path2)
	s, err := t.sqeFor(sl, "renameat", olddirfd)
	if err != nil {
		return err
	}
	if err := sqe.Renameat(s, olddirfd, sl.path, newdirfd, sl.path2, flags); err != nil {
		return t.abandon(s, sl, "Renameat", err)
	}
	_, _, err = t.wait(s, sl, "renameat", olddirfd)
	return err
}

// Splice moves up to n bytes from fdIn to fdOut (offsets -1 for pipes)
// (IORING_OP_SPLICE, 5.7).
func (t *T) Splice(fdIn int, offIn int64, fdOut int, offOut int64, n uint32, flags uint32) (int, error) {
	if t.ex.fb != nil {
		return t.fbSplice(fdIn, offIn, fdOut, offOut, n, flags)
	}
	s, sl, err := t.start("splice", fdOut)
	if err != nil {
		return 0, err
	}
	if err := sqe.Splice(s, fdIn, offIn, fdOut, offOut, n, flags); err != nil {
		return 0, t.abandon(s, sl, "Splice", err)
	}
	res, _, err := t.wait(s, sl, "splice", fdOut)
	return int(res), err
}

// Poll waits until fd has one of events (unix.POLLIN ...) and returns the
// events that are ready (IORING_OP_POLL_ADD, 5.1).
func (t *T) Poll(fd int, events uint32) (uint32, error) {
	if t.ex.fb != nil {
		return t.fbPoll(fd, events)
	}
	s, sl, err := t.start("poll_add", fd)
	if err != nil {
		return 0, err
	}
	if err := sqe.PollAdd(s, fd, events); err != nil {
		return 0, t.abandon(s, sl, "Poll", err)
	}
	res, _, err := t.wait(s, sl, "poll_add", fd)
	return uint32(res), err
}

// Sleep parks the task for d (IORING_OP_TIMEOUT, 5.4); a cancelled context
// ends it early with the context's error.
func (t *T) Sleep(d time.Duration) error {
	if t.ex.fb != nil {
		return t.fbSleepOp(d)
	}
	if err := t.check(); err != nil {
		return opError("timeout", -1, err)
	}
	s, sl, err := t.startAlways("timeout", -1)
	if err != nil {
		return err
	}
	if err := sqe.Timeout(s, &sl.ts, max(d, 0), 0, 0); err != nil {
		return t.abandon(s, sl, "Sleep", err)
	}
	saved := t.hasDeadline
	t.hasDeadline = false
	_, _, err = t.wait(s, sl, "timeout", -1)
	t.hasDeadline = saved
	if err != nil && errors.Is(err, unix.ETIME) {
		return nil
	}
	return err
}
