//go:build linux

package task

import (
	"iter"
	"net/netip"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// The task methods on the fallback backend (Linux). Arguments are checked
// by the same sqe builders as on the ring (on a scratch SQE), so the
// errors are the same. Reads and writes try the call without waiting
// (preadv2/pwritev2 with RWF_NOWAIT, recv/send with MSG_DONTWAIT, which
// need no O_NONBLOCK on the fd) and wait for readiness only when it would
// block; a file that cannot be polled (a regular file whose data is not
// cached) is read on a goroutine. Calls that may block (open, fsync,
// rename ...) run on a goroutine while only the task parks.

// fbRW is Read and Write (write set) on the fallback.
func (t *T) fbRW(fn, name string, fd int, buf []byte, off int64, write bool) (int, error) {
	t.ex.countOp(classFile, false)
	defer t.ex.doneOp(classFile)
	var s sys.SQE
	var err error
	if write {
		err = sqe.Write(&s, fd, buf, off)
	} else {
		err = sqe.Read(&s, fd, buf, off)
	}
	if err != nil {
		return 0, argErr(fn, err)
	}
	ev := uint32(pollIn)
	try := fdio.PreadNowait
	if write {
		ev, try = pollOut, fdio.PwriteNowait
	}
	if fbNoNowait {
		try = func(int, []byte, int64) (int, error) { return 0, unix.EOPNOTSUPP }
	}
	for {
		if err := t.check(); err != nil {
			return 0, opError(name, fd, err)
		}
		n, err := try(fd, buf, off)
		switch {
		case err == nil:
			return n, nil
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			werr := t.fbWait(fd, ev)
			if werr == nil {
				continue
			}
			if werr != errNotPollable {
				return 0, opError(name, fd, werr)
			}
		case err == unix.EOPNOTSUPP: // a file without RWF_NOWAIT
			if off < 0 {
				var st unix.Stat_t
				if unix.Fstat(fd, &st) == nil {
					switch st.Mode & unix.S_IFMT {
					case unix.S_IFIFO, unix.S_IFCHR, unix.S_IFSOCK:
						// Pollable, but RWF_NOWAIT is refused (5.10's
						// pipes): readiness, then a call that cannot block.
						return t.fbReadyRW(name, fd, buf, write, st.Mode&unix.S_IFMT == unix.S_IFSOCK)
					}
				}
			}
		default:
			return 0, opError(name, fd, err)
		}
		return fbBlocking(t, name, fd, func() (int, error) { return blockingRW(fd, buf, off, write) }, nil)
	}
}

// fbReadyRW reads or writes a pipe, character device or socket whose
// kernel refuses RWF_NOWAIT, without blocking the executor and with the
// wait cancellable: a socket with MSG_DONTWAIT; otherwise, once ready,
// a read of at most what FIONREAD says is there (0 there and readable is
// EOF), a write of at most PIPE_BUF (what a writable pipe has room for).
func (t *T) fbReadyRW(name string, fd int, buf []byte, write, sock bool) (int, error) {
	ev := uint32(pollIn)
	if write {
		ev = pollOut
	}
	for {
		if err := t.check(); err != nil {
			return 0, opError(name, fd, err)
		}
		var n int
		var err error
		switch {
		case sock && write:
			n, err = fdio.SendFlags(fd, buf, 0)
		case sock:
			n, err = fdio.RecvNonblock(fd, buf)
		default:
			n, err = boundedRW(fd, buf, write)
		}
		switch err {
		case nil:
			return n, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if werr := t.fbWait(fd, ev); werr != nil {
				return 0, opError(name, fd, werr)
			}
			continue
		}
		return 0, opError(name, fd, err)
	}
}

// boundedRW is one read or write on a pipe or character device that
// cannot block: EAGAIN when it would have to wait.
func boundedRW(fd int, buf []byte, write bool) (int, error) {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if write {
		p[0].Events = unix.POLLOUT
	}
	if n, err := unix.Poll(p, 0); err != nil {
		return 0, err
	} else if n == 0 {
		return 0, unix.EAGAIN
	}
	if write {
		if p[0].Revents&(unix.POLLERR|unix.POLLHUP) == 0 && len(buf) > pipeBuf {
			buf = buf[:pipeBuf]
		}
		return unix.Write(fd, buf)
	}
	avail, err := unix.IoctlGetInt(fd, unix.TIOCINQ) // FIONREAD
	if err != nil {
		return 0, err
	}
	if avail == 0 {
		if p[0].Revents&unix.POLLHUP != 0 {
			return 0, nil // the writers are gone: EOF
		}
		if p[0].Revents&unix.POLLIN == 0 {
			return 0, unix.EAGAIN
		}
		// Readable with nothing counted (a device): a read returns at once.
	} else if len(buf) > avail {
		buf = buf[:avail]
	}
	return unix.Read(fd, buf)
}

// fbNoNowait makes the fallback's reads and writes take the path of a
// kernel without RWF_NOWAIT (tests).
var fbNoNowait bool

// pipeBuf is PIPE_BUF: a writable pipe has room for at least this much.
const pipeBuf = 4096

// fbVec is Readv and Writev: a blocking call on a goroutine.
func (t *T) fbVec(fn, name string, fd int, bufs [][]byte, off int64, write bool) (int, error) {
	t.ex.countOp(classFile, false)
	defer t.ex.doneOp(classFile)
	var s sys.SQE
	iov, err := sqe.Iovecs(nil, bufs) // the ring path's checks, and its errors
	if err != nil {
		return 0, argErr(fn, err)
	}
	if write {
		err = sqe.Writev(&s, fd, iov, off)
	} else {
		err = sqe.Readv(&s, fd, iov, off)
	}
	if err != nil {
		return 0, argErr(fn, err)
	}
	return fbBlocking(t, name, fd, func() (int, error) {
		for {
			var n int
			var err error
			switch {
			case write && off < 0:
				n, err = unix.Writev(fd, bufs)
			case write:
				n, err = unix.Pwritev(fd, bufs, off)
			case off < 0:
				n, err = unix.Readv(fd, bufs)
			default:
				n, err = unix.Preadv(fd, bufs, off)
			}
			if err != unix.EINTR {
				return max(n, 0), err
			}
		}
	}, nil)
}

// fbSock is Recv and Send (send set) on the fallback.
func (t *T) fbSock(fn, name string, fd int, buf []byte, flags int, send bool) (int, error) {
	t.ex.countOp(classNet, false)
	defer t.ex.doneOp(classNet)
	var s sys.SQE
	var err error
	if send {
		err = sqe.Send(&s, fd, buf, flags)
	} else {
		err = sqe.Recv(&s, fd, buf, flags)
	}
	if err != nil {
		return 0, argErr(fn, err)
	}
	ev := uint32(pollIn)
	try := fdio.RecvFlags
	if send {
		ev, try = pollOut, fdio.SendFlags
	}
	for {
		if err := t.check(); err != nil {
			return 0, opError(name, fd, err)
		}
		n, err := try(fd, buf, flags)
		switch {
		case err == nil:
			return n, nil
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if werr := t.fbWait(fd, ev); werr != nil {
				return 0, opError(name, fd, werr)
			}
		default:
			return 0, opError(name, fd, err)
		}
	}
}

func (t *T) fbAccept(fd int, flags int) (int, netip.AddrPort, error) {
	t.ex.countOp(classNet, false)
	defer t.ex.doneOp(classNet)
	var s sys.SQE
	if err := sqe.Accept(&s, fd, nil, nil, flags); err != nil {
		return -1, netip.AddrPort{}, argErr("Accept", err)
	}
	// accept4 has no MSG_DONTWAIT: the listening socket itself must not
	// block, or a connection gone between readiness and accept (or taken
	// by another acceptor) would hold the executor's thread. Go's net
	// keeps its listeners non-blocking too.
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil {
		return -1, netip.AddrPort{}, opError("accept", fd, err)
	} else if fl&unix.O_NONBLOCK == 0 {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl|unix.O_NONBLOCK); err != nil {
			return -1, netip.AddrPort{}, opError("accept", fd, err)
		}
	}
	for {
		if _, err := t.fbReady("accept", fd, unix.POLLIN, pollIn); err != nil {
			return -1, netip.AddrPort{}, err
		}
		nfd, peer, scope, err := fdio.Accept4(fd, flags|unix.SOCK_CLOEXEC)
		switch err {
		case nil:
			return nfd, sockaddr.Zoned(peer, scope), nil
		case unix.EAGAIN, unix.EINTR, unix.ECONNABORTED:
			continue // another acceptor took it, or the peer left: wait again
		}
		return -1, netip.AddrPort{}, opError("accept", fd, err)
	}
}

func (t *T) fbSocket(domain, typ, proto int) (int, error) {
	var s sys.SQE
	if err := sqe.Socket(&s, domain, typ, proto); err != nil {
		return -1, argErr("Socket", err)
	}
	if err := t.check(); err != nil {
		return -1, opError("socket", -1, err)
	}
	fd, err := unix.Socket(domain, typ|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return -1, opError("socket", -1, err)
	}
	return fd, nil
}

func (t *T) fbSendmsg(fd int, bufs [][]byte, oob []byte, addr netip.AddrPort, flags int) (int, error) {
	var to unix.Sockaddr
	if addr.IsValid() {
		to = sockaddr.FromAddrPort(addr)
	}
	for {
		if err := t.check(); err != nil {
			return 0, opError("sendmsg", fd, err)
		}
		n, err := unix.SendmsgBuffers(fd, bufs, oob, to, flags|unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
		switch err {
		case nil:
			return n, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if werr := t.fbWait(fd, pollOut); werr != nil {
				return 0, opError("sendmsg", fd, werr)
			}
			continue
		}
		return 0, opError("sendmsg", fd, err)
	}
}

func (t *T) fbRecvmsg(fd int, bufs [][]byte, oob []byte, flags int) (n, oobn, recvflags int, from netip.AddrPort, err error) {
	for {
		if err := t.check(); err != nil {
			return 0, 0, 0, from, opError("recvmsg", fd, err)
		}
		n, oobn, recvflags, sa, err := unix.RecvmsgBuffers(fd, bufs, oob, flags|unix.MSG_DONTWAIT)
		switch err {
		case nil:
			return n, oobn, recvflags, sockaddr.ToAddrPort(sa), nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if werr := t.fbWait(fd, pollIn); werr != nil {
				return 0, 0, 0, from, opError("recvmsg", fd, werr)
			}
			continue
		}
		return 0, 0, 0, from, opError("recvmsg", fd, err)
	}
}

func (t *T) fbPoll(fd int, events uint32) (uint32, error) {
	ev := uint32(pollIn)
	if events&unix.POLLIN == 0 && events&unix.POLLOUT != 0 {
		ev = pollOut
	}
	rev, err := t.fbReady("poll_add", fd, int16(events), ev)
	return uint32(uint16(rev)), err
}

// fbPath checks a path argument as the ring's builders do.
func fbPath(fn, arg, p string) error {
	if _, err := sqe.AppendPath(nil, p); err != nil {
		return pathErr(fn, arg, err)
	}
	return nil
}

func (t *T) fbOpenat(dirfd int, path string, flags int, mode uint32) (int, error) {
	if err := fbPath("Openat", "path", path); err != nil {
		return -1, err
	}
	return fbBlocking(t, "openat", dirfd, func() (int, error) {
		for {
			fd, err := unix.Openat(dirfd, path, flags|unix.O_CLOEXEC, mode)
			if err != unix.EINTR {
				return fd, err
			}
		}
	}, func(fd int) { _ = unix.Close(fd) })
}

func (t *T) fbClose(fd int) error {
	if fd < 0 {
		return argError("Close", "fd", "= "+strconv.Itoa(fd)+" is negative")
	}
	if err := unix.Close(fd); err != nil {
		return opError("close", fd, err)
	}
	return nil
}

func (t *T) fbStatx(dirfd int, path string, flags int, mask uint32, st *unix.Statx_t) error {
	if err := fbPath("Statx", "path", path); err != nil {
		return err
	}
	_, err := fbBlocking(t, "statx", dirfd, func() (struct{}, error) {
		return struct{}{}, unix.Statx(dirfd, path, flags, int(mask), st)
	}, nil)
	return err
}

func (t *T) fbFsync(fd int, flags uint32) error {
	var s sys.SQE
	if err := sqe.Fsync(&s, fd, flags); err != nil {
		return argErr("Fsync", err)
	}
	_, err := fbBlocking(t, "fsync", fd, func() (struct{}, error) {
		if flags&sys.FsyncDatasync != 0 {
			return struct{}{}, unix.Fdatasync(fd)
		}
		return struct{}{}, unix.Fsync(fd)
	}, nil)
	return err
}

func (t *T) fbFallocate(fd int, mode uint32, off, length int64) error {
	var s sys.SQE
	if err := sqe.Fallocate(&s, fd, mode, off, length); err != nil {
		return argErr("Fallocate", err)
	}
	_, err := fbBlocking(t, "fallocate", fd, func() (struct{}, error) {
		return struct{}{}, unix.Fallocate(fd, mode, off, length)
	}, nil)
	return err
}

func (t *T) fbUnlinkat(dirfd int, path string, flags int) error {
	if err := fbPath("Unlinkat", "path", path); err != nil {
		return err
	}
	_, err := fbBlocking(t, "unlinkat", dirfd, func() (struct{}, error) {
		return struct{}{}, unix.Unlinkat(dirfd, path, flags)
	}, nil)
	return err
}

func (t *T) fbMkdirat(dirfd int, path string, mode uint32) error {
	if err := fbPath("Mkdirat", "path", path); err != nil {
		return err
	}
	_, err := fbBlocking(t, "mkdirat", dirfd, func() (struct{}, error) {
		return struct{}{}, unix.Mkdirat(dirfd, path, mode)
	}, nil)
	return err
}

func (t *T) fbRenameat(olddirfd int, oldpath string, newdirfd int, newpath string, flags uint32) error {
	if err := fbPath("Renameat", "oldpath", oldpath); err != nil {
		return err
	}
	if err := fbPath("Renameat", "newpath", newpath); err != nil {
		return err
	}
	_, err := fbBlocking(t, "renameat", olddirfd, func() (struct{}, error) {
		return struct{}{}, unix.Renameat2(olddirfd, oldpath, newdirfd, newpath, uint(flags))
	}, nil)
	return err
}

func (t *T) fbSplice(fdIn int, offIn int64, fdOut int, offOut int64, n uint32, flags uint32) (int, error) {
	var s sys.SQE
	if err := sqe.Splice(&s, fdIn, offIn, fdOut, offOut, n, flags); err != nil {
		return 0, argErr("Splice", err)
	}
	return fbBlocking(t, "splice", fdOut, func() (int, error) {
		var pin, pout *int64
		if offIn >= 0 {
			pin = &offIn
		}
		if offOut >= 0 {
			pout = &offOut
		}
		for {
			m, err := unix.Splice(fdIn, pin, fdOut, pout, int(n), int(flags))
			if err != unix.EINTR {
				return int(max(m, 0)), err
			}
		}
	}, nil)
}

func (t *T) fbSleepOp(d time.Duration) error {
	if err := t.fbSleep(max(d, 0)); err != nil {
		return opError("timeout", -1, err)
	}
	return nil
}

// fbAcceptMultishot accepts in a loop: the iterator without multishot.
func (t *T) fbAcceptMultishot(fd int, flags int) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		for {
			nfd, _, err := t.fbAccept(fd, flags)
			if err != nil {
				yield(-1, err)
				return
			}
			if !yield(nfd, nil) {
				return
			}
		}
	}
}

// fbPollMultishot polls in a loop.
func (t *T) fbPollMultishot(fd int, events uint32) iter.Seq2[uint32, error] {
	return func(yield func(uint32, error) bool) {
		for {
			ev, err := t.fbPoll(fd, events)
			if err != nil {
				yield(0, err)
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// fbPoolIter is a multishot iterator with provided buffers: io_uring only.
func fbPoolIter(name string, _ *reg.BufPool) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		yield(nil, unsupportedOp(name, "a provided-buffer pool"))
	}
}

func (t *T) fbNop() error {
	if err := t.check(); err != nil {
		return opError("nop", -1, err)
	}
	return nil
}

func (t *T) fbShutdown(fd, how int) error {
	var s sys.SQE
	if err := sqe.Shutdown(&s, fd, how); err != nil {
		return argErr("Shutdown", err)
	}
	if err := t.check(); err != nil {
		return opError("shutdown", fd, err)
	}
	if err := unix.Shutdown(fd, how); err != nil {
		return opError("shutdown", fd, err)
	}
	return nil
}
