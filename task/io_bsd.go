//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package task

import (
	"net/netip"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/sockaddr"
)

// The task methods on raw fds on macOS and the BSDs, where every executor
// runs the fallback backend: sockets and pipes are tried without blocking
// and waited for on the executor's kqueue; regular files, opens and syncs
// run on a goroutine while only the task parks. The Linux-only calls
// (Statx, Splice, Fallocate, fixed buffers, multishot iterators with
// provided buffers, Link, Await) do not exist here.

// pipeBuf is PIPE_BUF: a writable pipe has room for at least this much.
const pipeBuf = 512

// fdArg checks an fd argument.
func fdArg(fn string, fd int) error {
	if fd < 0 {
		return argError(fn, "fd", "= "+strconv.Itoa(fd)+" is negative")
	}
	return nil
}

// Read reads into buf at off (CurrentPos: the file position); 0 means end
// of file.
func (t *T) Read(fd int, buf []byte, off int64) (int, error) {
	return t.bsdRW("Read", "read", fd, buf, off, false)
}

// Write writes buf at off (CurrentPos: the file position).
func (t *T) Write(fd int, buf []byte, off int64) (int, error) {
	return t.bsdRW("Write", "write", fd, buf, off, true)
}

// bsdRW is Read and Write: a pollable fd (socket, pipe, terminal) is read
// or written once it is ready, never blocking; anything else on a
// goroutine.
func (t *T) bsdRW(fn, name string, fd int, buf []byte, off int64, write bool) (int, error) {
	if err := fdArg(fn, fd); err != nil {
		return 0, err
	}
	if off < CurrentPos {
		return 0, argError(fn, "off", "= "+strconv.FormatInt(off, 10)+" is negative (CurrentPos is -1)")
	}
	t.ex.countOp(classFile, false)
	defer t.ex.doneOp(classFile)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, opError(name, fd, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		if off >= 0 {
			return 0, opError(name, fd, unix.ESPIPE)
		}
		if write {
			return t.bsdSock(name, fd, buf, 0, true)
		}
		return t.bsdSock(name, fd, buf, 0, false)
	case unix.S_IFIFO, unix.S_IFCHR:
		if off >= 0 && st.Mode&unix.S_IFMT == unix.S_IFIFO {
			return 0, opError(name, fd, unix.ESPIPE)
		}
		return t.bsdReadyRW(name, fd, buf, write)
	}
	return fbBlocking(t, name, fd, func() (int, error) { return blockingRW(fd, buf, off, write) }, nil)
}

// bsdReadyRW reads or writes a pipe or character device once poll(2) says
// it is ready, at most what FIONREAD counts (a read) or PIPE_BUF (a write),
// so the call cannot block; a device without FIONREAD is read whole.
func (t *T) bsdReadyRW(name string, fd int, buf []byte, write bool) (int, error) {
	ev, events := uint32(pollIn), int16(unix.POLLIN)
	if write {
		ev, events = pollOut, unix.POLLOUT
	}
	for {
		rev, err := t.fbReady(name, fd, events, ev)
		if err != nil {
			return 0, err
		}
		var n int
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
				return 0, nil // the writers are gone: EOF
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
			return max(n, 0), nil
		case unix.EAGAIN, unix.EINTR:
			continue
		}
		return 0, opError(name, fd, err)
	}
}

// Recv receives into buf; 0 means the peer shut down.
func (t *T) Recv(fd int, buf []byte, flags int) (int, error) {
	if err := fdArg("Recv", fd); err != nil {
		return 0, err
	}
	t.ex.countOp(classNet, false)
	defer t.ex.doneOp(classNet)
	return t.bsdSock("recv", fd, buf, flags, false)
}

// Send sends buf.
func (t *T) Send(fd int, buf []byte, flags int) (int, error) {
	if err := fdArg("Send", fd); err != nil {
		return 0, err
	}
	t.ex.countOp(classNet, false)
	defer t.ex.doneOp(classNet)
	return t.bsdSock("send", fd, buf, flags, true)
}

// bsdSock is recv or send with MSG_DONTWAIT, waiting on the kqueue when it
// would block.
func (t *T) bsdSock(name string, fd int, buf []byte, flags int, send bool) (int, error) {
	ev := uint32(pollIn)
	if send {
		ev = pollOut
	}
	for {
		if err := t.check(); err != nil {
			return 0, opError(name, fd, err)
		}
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
			return max(n, 0), nil
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

// Socket creates a socket (close-on-exec).
func (t *T) Socket(domain, typ, proto int) (int, error) {
	if err := t.check(); err != nil {
		return -1, opError("socket", -1, err)
	}
	fd, err := unix.Socket(domain, typ, proto)
	if err != nil {
		return -1, opError("socket", -1, err)
	}
	unix.CloseOnExec(fd)
	return fd, nil
}

// Connect connects the socket fd to addr; the wait ends with the task's
// context.
func (t *T) Connect(fd int, addr netip.AddrPort) error {
	if err := fdArg("Connect", fd); err != nil {
		return err
	}
	if !addr.IsValid() {
		return argError("Connect", "addr", "is not a valid address and port")
	}
	return t.fbConnect(fd, addr)
}

// Accept accepts a connection on the listening socket fd (made
// non-blocking, as Go's net keeps its listeners) and returns its fd
// (close-on-exec; SOCK_NONBLOCK in flags makes it non-blocking) and the
// peer's address.
func (t *T) Accept(fd int, flags int) (int, netip.AddrPort, error) {
	if err := fdArg("Accept", fd); err != nil {
		return -1, netip.AddrPort{}, err
	}
	t.ex.countOp(classNet, false)
	defer t.ex.doneOp(classNet)
	if err := unix.SetNonblock(fd, true); err != nil {
		return -1, netip.AddrPort{}, opError("accept", fd, err)
	}
	for {
		if _, err := t.fbReady("accept", fd, unix.POLLIN, pollIn); err != nil {
			return -1, netip.AddrPort{}, err
		}
		nfd, sa, err := unix.Accept(fd)
		switch err {
		case nil:
			unix.CloseOnExec(nfd)
			if err := unix.SetNonblock(nfd, flags&sockNonblock != 0); err != nil {
				unix.Close(nfd)
				return -1, netip.AddrPort{}, opError("accept", fd, err)
			}
			return nfd, sockaddr.ToAddrPort(sa), nil
		case unix.EAGAIN, unix.EINTR, unix.ECONNABORTED:
			continue
		}
		return -1, netip.AddrPort{}, opError("accept", fd, err)
	}
}

// fionread is FIONREAD (_IOR('f', 127, int)) on macOS and the BSDs.
const fionread = 0x4004667f

// sockNonblock is Linux's SOCK_NONBLOCK, which Accept's flags may carry
// here too.
const sockNonblock = 0x800

// Shutdown shuts down part of a full-duplex connection.
func (t *T) Shutdown(fd, how int) error {
	if err := fdArg("Shutdown", fd); err != nil {
		return err
	}
	if err := t.check(); err != nil {
		return opError("shutdown", fd, err)
	}
	if err := unix.Shutdown(fd, how); err != nil {
		return opError("shutdown", fd, err)
	}
	return nil
}

// Openat opens path relative to dirfd (close-on-exec), on a goroutine.
func (t *T) Openat(dirfd int, path string, flags int, mode uint32) (int, error) {
	if path == "" {
		return -1, argError("Openat", "path", "is empty")
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

// Open is Openat relative to the working directory.
func (t *T) Open(path string, flags int, mode uint32) (int, error) {
	return t.Openat(unix.AT_FDCWD, path, flags, mode)
}

// Close closes fd.
func (t *T) Close(fd int) error {
	if err := fdArg("Close", fd); err != nil {
		return err
	}
	if err := unix.Close(fd); err != nil {
		return opError("close", fd, err)
	}
	return nil
}

// Fsync flushes fd (FsyncDatasync in flags: its data only), on a
// goroutine.
func (t *T) Fsync(fd int, flags uint32) error {
	if err := fdArg("Fsync", fd); err != nil {
		return err
	}
	_, err := fbBlocking(t, "fsync", fd, func() (struct{}, error) { return struct{}{}, unix.Fsync(fd) }, nil)
	return err
}

// Poll waits until fd is ready for one of events (unix.POLLIN ...) and
// returns the ready ones.
func (t *T) Poll(fd int, events uint32) (uint32, error) {
	if err := fdArg("Poll", fd); err != nil {
		return 0, err
	}
	ev := uint32(pollIn)
	if events&unix.POLLOUT != 0 && events&unix.POLLIN == 0 {
		ev = pollOut
	}
	rev, err := t.fbReady("poll_add", fd, int16(events), ev)
	return uint32(uint16(rev)), err
}
