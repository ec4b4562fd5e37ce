//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package task

import (
	"net/netip"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/sockaddr"
)

// The fallback's calls that are the same on every Unix (Linux, macOS, the
// BSDs): readiness through poll(2) and the executor's poller, plain file
// I/O for a goroutine, sockaddrs, a cancellable non-blocking connect.

// fbReady waits until fd is ready for ev (poll(2) first, so a blocking fd
// never blocks the executor): the readiness Accept needs.
func (t *T) fbReady(name string, fd int, events int16, ev uint32) (int16, error) {
	for {
		if err := t.check(); err != nil {
			return 0, opError(name, fd, err)
		}
		p := []unix.PollFd{{Fd: int32(fd), Events: events}}
		n, err := unix.Poll(p, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, opError(name, fd, err)
		}
		if n > 0 && p[0].Revents != 0 {
			return p[0].Revents, nil
		}
		if err := t.fbWait(fd, ev); err != nil {
			if err == errNotPollable {
				return events, nil // a regular file is always ready
			}
			return 0, opError(name, fd, err)
		}
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

// fbConnect connects the socket fd to addr without blocking the executor.
func (t *T) fbConnect(fd int, addr netip.AddrPort) error {
	t.ex.countOp(classNet, false)
	defer t.ex.doneOp(classNet)
	sa := sockaddr.FromAddrPort(addr)
	if err := t.check(); err != nil {
		return opError("connect", fd, err)
	}
	// A non-blocking connect, its completion awaited as writability: the
	// wait ends with the task's context (a blocking connect to a silent
	// peer would last minutes). The fd's own mode is restored after.
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return opError("connect", fd, err)
	}
	if fl&unix.O_NONBLOCK == 0 {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl|unix.O_NONBLOCK); err != nil {
			return opError("connect", fd, err)
		}
		defer unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl)
	}
	err = unix.Connect(fd, sa)
	for err == unix.EINTR {
		err = unix.Connect(fd, sa)
	}
	switch err {
	case nil, unix.EISCONN:
		return nil
	case unix.EINPROGRESS, unix.EALREADY:
	default:
		return opError("connect", fd, err)
	}
	if _, err := t.fbReady("connect", fd, unix.POLLOUT, pollOut); err != nil {
		return err
	}
	soerr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err == nil && soerr != 0 {
		err = unix.Errno(soerr)
	}
	if err != nil {
		return opError("connect", fd, err)
	}
	return nil
}
