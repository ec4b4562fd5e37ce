//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package fallback

import (
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/task/internal/iop"
)

// The operations on raw fds on macOS and the BSDs, where every executor
// runs the fallback: sockets and pipes are tried without blocking and
// waited for on the kqueue; regular files, opens and syncs run on a
// goroutine while only the task parks. Package task has no methods for
// the Linux-only operations here.

// pipeBuf is PIPE_BUF: a writable pipe has room for at least this much.
const pipeBuf = 512

// fdArg checks an fd argument.
func fdArg(fd int) error {
	if fd < 0 {
		return iop.BadArg("fd", "= "+strconv.Itoa(fd)+" is negative")
	}
	return nil
}

// The ways a read or write goes on (wait.mode).
const (
	modeSock  = iota // a socket: MSG_DONTWAIT, readiness when it would block
	modeReady        // a pipe or device: readiness, then a call that cannot block
)

// run runs wt's operation (first), or goes on with it after its fd became
// ready.
func (f *Backend) run(wt *wait, first bool) iop.Status {
	op, w := wt.op, wt.w
	fd := op.Fd
	switch op.Code {
	case iop.Nop:
		return w.Finish(0, nil)
	case iop.Sleep:
		return f.sleep(wt)
	case iop.Read, iop.Write:
		return f.rw(wt, first)
	case iop.Recv, iop.Send:
		if err := fdArg(fd); err != nil {
			return w.Finish(0, err)
		}
		return f.sock(wt, op.Flags)
	case iop.Socket:
		nfd, err := unix.Socket(op.Fd2, op.Flags, int(op.Mode))
		if err != nil {
			return w.Finish(0, err)
		}
		unix.CloseOnExec(nfd)
		return w.Finish(nfd, nil)
	case iop.Connect:
		if first {
			if err := fdArg(fd); err != nil {
				return w.Finish(0, err)
			}
		}
		return f.connect(wt, first)
	case iop.Accept:
		return f.accept(wt, first)
	case iop.Shutdown:
		if err := fdArg(fd); err != nil {
			return w.Finish(0, err)
		}
		return w.Finish(0, unix.Shutdown(fd, op.Flags))
	case iop.Openat:
		if op.Path == "" {
			return w.Finish(0, iop.BadArg("path", "is empty"))
		}
		own := borrowed
		if fd >= 0 && op.Path[0] != '/' {
			// An open may wait for a FIFO's peer (or a device) for ever:
			// it gets a directory fd of its own.
			var err error
			if own, err = dupFds(fd, -1); err != nil {
				return w.Finish(0, err)
			}
		}
		return f.blocking(wt, own)
	case iop.Close:
		if err := fdArg(fd); err != nil {
			return w.Finish(0, err)
		}
		return w.Finish(0, unix.Close(fd))
	case iop.Fsync:
		if err := fdArg(fd); err != nil {
			return w.Finish(0, err)
		}
		return f.blocking(wt, borrowed)
	case iop.Poll:
		if first {
			if err := fdArg(fd); err != nil {
				return w.Finish(0, err)
			}
		}
		return f.poll(wt)
	}
	return w.Finish(0, iop.Unsupported(op.Code, "this operation"))
}

// rw is Read and Write: a pollable fd (socket, pipe, terminal) is read or
// written once it is ready, never blocking; anything else on a goroutine.
func (f *Backend) rw(wt *wait, first bool) iop.Status {
	op, w := wt.op, wt.w
	fd, off := op.Fd, op.Off
	if first {
		if err := fdArg(fd); err != nil {
			return w.Finish(0, err)
		}
		if off < -1 {
			return w.Finish(0, iop.BadArg("off", "= "+strconv.FormatInt(off, 10)+" is negative (CurrentPos is -1)"))
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return w.Finish(0, err)
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFSOCK:
			if off >= 0 {
				return w.Finish(0, unix.ESPIPE)
			}
			wt.mode = modeSock
		case unix.S_IFIFO, unix.S_IFCHR:
			if off >= 0 && st.Mode&unix.S_IFMT == unix.S_IFIFO {
				return w.Finish(0, unix.ESPIPE)
			}
			wt.mode = modeReady
		default:
			// A regular file, a directory, a block device: the call ends by
			// itself, on the task's fd.
			return f.blocking(wt, borrowed)
		}
	}
	if wt.mode == modeSock {
		return f.sock(wt, 0)
	}
	return f.readyRW(wt)
}

// readyRW reads or writes a pipe or character device once poll(2) says it
// is ready, at most what FIONREAD counts (a read) or PIPE_BUF (a write),
// so the call cannot block; a device without FIONREAD is read whole.
func (f *Backend) readyRW(wt *wait) iop.Status {
	op, w := wt.op, wt.w
	fd, buf, write := op.Fd, op.Buf, op.Code == iop.Write
	ev, events := uint32(pollIn), int16(unix.POLLIN)
	if write {
		ev, events = pollOut, unix.POLLOUT
	}
	for {
		rev, st, ok := f.ready(wt, fd, events, ev)
		if !ok {
			return st
		}
		var n int
		var err error
		if write {
			b := buf
			if rev&(unix.POLLERR|unix.POLLHUP) == 0 && len(b) > pipeBuf {
				b = b[:pipeBuf]
			}
			n, err = unix.Write(fd, b)
		} else {
			var avail int
			avail, err = unix.IoctlGetInt(fd, fionread)
			switch {
			case err != nil:
				// No FIONREAD (/dev/null, /dev/zero, /dev/urandom): such a
				// device does not block once readable.
				n, err = unix.Read(fd, buf)
			case avail == 0 && rev&unix.POLLHUP != 0:
				return w.Finish(0, nil) // the writers are gone: EOF
			case avail == 0 && rev&unix.POLLIN == 0:
				continue
			default:
				b := buf
				if avail > 0 && len(b) > avail {
					b = b[:avail]
				}
				n, err = unix.Read(fd, b)
			}
		}
		switch err {
		case nil:
			return w.Finish(max(n, 0), nil)
		case unix.EAGAIN, unix.EINTR:
			continue
		}
		return w.Finish(0, err)
	}
}

// sock is recv or send with MSG_DONTWAIT, waiting on the kqueue when it
// would block.
func (f *Backend) sock(wt *wait, flags int) iop.Status {
	op, w := wt.op, wt.w
	fd, buf := op.Fd, op.Buf
	send := op.Code == iop.Send || op.Code == iop.Write
	ev := uint32(pollIn)
	if send {
		ev = pollOut
	}
	for {
		var n int
		var err error
		if send {
			err = unix.Sendto(fd, buf, flags|unix.MSG_DONTWAIT, nil)
			if err == nil {
				n = len(buf)
			}
		} else {
			n, _, err = unix.Recvfrom(fd, buf, flags|unix.MSG_DONTWAIT)
		}
		switch err {
		case nil:
			return w.Finish(max(n, 0), nil)
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if werr := f.waitFd(wt, fd, ev); werr != nil {
				return w.Finish(0, werr)
			}
			return iop.Parked
		}
		return w.Finish(0, err)
	}
}

// accept is Accept on the listening socket (made non-blocking, as Go's
// net keeps its listeners); the new fd is close-on-exec, and non-blocking
// when SOCK_NONBLOCK is in the flags.
func (f *Backend) accept(wt *wait, first bool) iop.Status {
	op, w := wt.op, wt.w
	fd := op.Fd
	if first {
		if err := fdArg(fd); err != nil {
			return w.Finish(0, err)
		}
		if err := unix.SetNonblock(fd, true); err != nil {
			return w.Finish(0, err)
		}
	}
	for {
		if _, st, ok := f.ready(wt, fd, unix.POLLIN, pollIn); !ok {
			return st
		}
		nfd, sa, err := unix.Accept(fd)
		switch err {
		case nil:
			unix.CloseOnExec(nfd)
			if err := unix.SetNonblock(nfd, op.Flags&sockNonblock != 0); err != nil {
				unix.Close(nfd)
				return w.Finish(0, err)
			}
			w.Peer = sockaddr.ToAddrPort(sa)
			return w.Finish(nfd, nil)
		case unix.EAGAIN, unix.EINTR, unix.ECONNABORTED:
			continue
		}
		return w.Finish(0, err)
	}
}

// fionread is FIONREAD (_IOR('f', 127, int)) on macOS and the BSDs.
const fionread = 0x4004667f

// sockNonblock is Linux's SOCK_NONBLOCK, which Accept's flags may carry
// here too.
const sockNonblock = 0x800

// callWouldWait: no blocking call here ends where it would have waited.
func (f *Backend) callWouldWait(*wait, error) (int, uint32, bool) { return 0, 0, false }

// callBlocking runs op's call, which may block (on a goroutine).
func callBlocking(op *iop.Op) (int, error) {
	switch op.Code {
	case iop.Read, iop.Write:
		return blockingRW(op.Fd, op.Buf, op.Off, op.Code == iop.Write)
	case iop.Openat:
		for {
			fd, err := unix.Openat(op.Fd, op.Path, op.Flags|unix.O_CLOEXEC, op.Mode)
			if err != unix.EINTR {
				return fd, err
			}
		}
	case iop.Fsync:
		return 0, unix.Fsync(op.Fd)
	}
	return 0, iop.NeedsRing("this operation")
}
