//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package fallback

import (
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/task/internal/iop"
)

// The fallback's calls that are the same on every Unix (Linux, macOS, the
// BSDs): readiness through poll(2) and the poller, plain file I/O for a
// goroutine, a cancellable non-blocking connect.

// ready polls fd for events (poll(2) first, so a blocking fd never blocks
// the executor): ok with the ready events, or the status of wt, parked
// until fd is ready for ev (Again) or done with an error.
func (f *Backend) ready(wt *wait, fd int, events int16, ev uint32) (rev int16, st iop.Status, ok bool) {
	for {
		p := []unix.PollFd{{Fd: int32(fd), Events: events}}
		n, err := unix.Poll(p, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, wt.w.Finish(0, err), false
		}
		if n > 0 && p[0].Revents != 0 {
			return p[0].Revents, 0, true
		}
		if err := f.waitFd(wt, fd, ev); err != nil {
			if err == errNotPollable {
				return events, 0, true // a regular file is always ready
			}
			return 0, wt.w.Finish(0, err), false
		}
		return 0, iop.Parked, false
	}
}

// blockingRW is the plain (p)read or (p)write, EINTR retried.
func blockingRW(fd int, buf []byte, off int64, write bool) (int, error) {
	for {
		var n int
		var err error
		switch {
		case write && off < 0:
			n, err = unix.Write(fd, buf)
		case write:
			n, err = unix.Pwrite(fd, buf, off)
		case off < 0:
			n, err = unix.Read(fd, buf)
		default:
			n, err = unix.Pread(fd, buf, off)
		}
		if err != unix.EINTR {
			return max(n, 0), err
		}
	}
}

// connect connects the socket op.Fd to op.Addr without blocking the
// executor: a non-blocking connect, its completion awaited as writability,
// so the wait ends with the task's context (a blocking connect to a
// silent peer would last minutes). The fd's own mode is restored when the
// operation is done.
func (f *Backend) connect(wt *wait, first bool) iop.Status {
	w, fd := wt.w, wt.op.Fd
	if first {
		sa := sockaddr.FromAddrPort(wt.op.Addr)
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil {
			return w.Finish(0, err)
		}
		if fl&unix.O_NONBLOCK == 0 {
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl|unix.O_NONBLOCK); err != nil {
				return w.Finish(0, err)
			}
			wt.restore = fl
		}
		err = unix.Connect(fd, sa)
		for err == unix.EINTR {
			err = unix.Connect(fd, sa)
		}
		switch err {
		case nil, unix.EISCONN:
			return w.Finish(0, nil)
		case unix.EINPROGRESS, unix.EALREADY:
		default:
			return w.Finish(0, err)
		}
	}
	if _, st, ok := f.ready(wt, fd, unix.POLLOUT, pollOut); !ok {
		return st
	}
	soerr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err == nil && soerr != 0 {
		err = unix.Errno(soerr)
	}
	return w.Finish(0, err)
}

// restoreFlags gives fd its flags fl back.
func restoreFlags(fd, fl int) { _, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl) }

// closeFd closes an fd nobody will take.
func closeFd(fd int) { _ = unix.Close(fd) }

// dupFds gives a blocking call fds of its own: dups of fd and fd2 (-1:
// none), close-on-exec.
func dupFds(fd, fd2 int) (owned, error) {
	own := borrowed
	if fd >= 0 {
		nfd, err := dupFd(fd)
		if err != nil {
			return borrowed, err
		}
		own.fd = nfd
	}
	if fd2 >= 0 {
		nfd, err := dupFd(fd2)
		if err != nil {
			own.close()
			return borrowed, err
		}
		own.fd2 = nfd
	}
	return own, nil
}

func dupFd(fd int) (int, error) {
	for {
		nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != unix.EINTR {
			return nfd, err
		}
	}
}

// poll is Poll: readiness for events, its ready events the result.
func (f *Backend) poll(wt *wait) iop.Status {
	events := wt.op.Events
	ev := uint32(pollIn)
	if events&unix.POLLIN == 0 && events&unix.POLLOUT != 0 {
		ev = pollOut
	}
	rev, st, ok := f.ready(wt, wt.op.Fd, int16(events), ev)
	if !ok {
		return st
	}
	return wt.w.Finish(int(uint16(rev)), nil)
}
