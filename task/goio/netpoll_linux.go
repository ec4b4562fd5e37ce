//go:build linux

package goio

import (
	"errors"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
)

// The netpoller's sockets for goroutines (Conn, PacketConn): on the
// fallback backend, and on io_uring executors unless
// task.WithRingConnWaits, a request runs on the caller's goroutine, which
// waits for readiness in Go's own netpoller, as net does. The netpoller's
// file owns the fd (a listener's gets a duplicate of it: epoll watches the
// open file, so readiness of one is readiness of both); its deadlines are
// the sock's, and closing it ends the waits in flight.
type npFile struct {
	f      *os.File
	rc     syscall.RawConn
	rd, wr npReq // one per direction, under the sock's direction mutexes
}

// npReq is one direction's attempt, as the RawConn calls it: its function
// value is made once, so a Read or Write allocates nothing.
type npReq struct {
	s   *sock
	r   *connReq
	op  reqOp
	b   []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

// attempt is the RawConn's function: false to wait for readiness.
func (q *npReq) attempt(fd uintptr) bool {
	q.n, q.err = q.s.try(q.r, q.op, int(fd), q.b)
	if q.err == unix.EINTR {
		return false // again, after a readiness check
	}
	return q.err != unix.EAGAIN
}

// initNetpoll registers s with Go's netpoller (the fallback backend, or
// an io_uring executor without WithRingConnWaits). The socket becomes
// non-blocking (nonblock: it is already, as accept4 made it). From here
// the netpoller's file owns the fd: it closes it (sock.close, or the
// executor's Close), and every call on the fd goes through its RawConn,
// which holds the fd open under the call, as net's own sockets do.
func (s *sock) initNetpoll(nonblock bool) error {
	if !nonblock {
		if err := unix.SetNonblock(s.fd, true); err != nil {
			return os.NewSyscallError("fcntl", err)
		}
	}
	f := os.NewFile(uintptr(s.fd), "goio-sock")
	rc, err := f.SyscallConn()
	if err != nil {
		return err // only for a nil file: the fd stays the sock's
	}
	np := &npFile{f: f, rc: rc}
	np.rd = npReq{s: s, r: &s.rd}
	np.wr = npReq{s: s, r: &s.wr}
	np.rd.fn, np.wr.fn = np.rd.attempt, np.wr.attempt
	s.np = np
	if !s.reg.add(f) {
		_ = f.Close() // the executor is closing: its sockets are closed
	}
	return nil
}

// netpollFile makes fd non-blocking (the open file's flag) and registers a
// duplicate of it with Go's netpoller (a listener's: the listener keeps
// its own fd for the ring's accepts): readiness of the open file is
// readiness of both.
func netpollFile(fd int, name string) (*npFile, error) {
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("fcntl", err)
	}
	if err := unix.SetNonblock(dup, true); err != nil {
		unix.Close(dup)
		return nil, os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(dup), name)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &npFile{f: f, rc: rc}, nil
}

// closeNetpoll closes the netpoller's file, and with it the fd: the
// waits in flight end, the calls in flight finish first. An fd the
// executor's Close closed already is no error.
func (s *sock) closeNetpoll() error {
	s.reg.drop(s.np.f)
	err := s.np.f.Close()
	var pe *os.PathError
	switch {
	case err == nil || errors.Is(err, os.ErrClosed):
		return nil
	case errors.As(err, &pe):
		return pe.Err
	}
	return err
}

// netpollErr is the cause a netpoller RawConn's Read or Write ended
// with: os.ErrDeadlineExceeded for its deadline, net.ErrClosed for any
// other error (its file closed: the socket, listener or runtime is
// closing); nil for nil.
func netpollErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return os.ErrDeadlineExceeded
	}
	return net.ErrClosed
}

// netpollIO is io in the netpoller: the operation on the caller's
// goroutine, waiting for readiness under r's deadline. The executor's
// Close closes the netpoller's file, which ends the wait with
// net.ErrClosed.
func (s *sock) netpollIO(r *connReq, name string, op reqOp, b []byte) (int, error) {
	if s.closed.Load() {
		return 0, net.ErrClosed
	}
	if dl := r.dl.Load(); dl != 0 && time.Now().UnixNano() >= dl {
		return 0, os.ErrDeadlineExceeded
	}
	read := r == &s.rd
	q := &s.np.wr
	if read {
		q = &s.np.rd
	}
	q.op, q.b = op, b
	defer func() { q.b = nil }() // do not keep b reachable
	if op == reqSplice && r.spIn != s.fd && r.spOut != s.fd {
		// Between a pipe and a file: neither waits for the socket.
		q.n, q.err = s.try(r, op, s.fd, nil)
	} else {
		if op == reqSplice {
			read = r.spIn == s.fd
		}
		var err error
		if read {
			err = s.np.rc.Read(q.fn)
		} else {
			err = s.np.rc.Write(q.fn)
		}
		if err := netpollErr(err); err != nil {
			return 0, err
		}
	}
	if q.err != nil {
		if errno, ok := q.err.(unix.Errno); ok {
			return 0, os.NewSyscallError(name, errno)
		}
		return 0, q.err
	}
	return q.n, nil
}

// try makes one non-blocking attempt at op on fd.
func (s *sock) try(r *connReq, op reqOp, fd int, b []byte) (int, error) {
	switch op {
	case reqRecv:
		return fdio.RecvNonblock(fd, b)
	case reqSend:
		return fdio.SendFlags(fd, b, 0)
	case reqRecvmsg:
		return fdio.Recvmsg(fd, &r.m.msg, 0)
	case reqSendmsg:
		return fdio.Sendmsg(fd, &r.m.msg, 0)
	case reqPoll:
		pfd := []unix.PollFd{{Fd: int32(fd), Events: int16(r.events)}}
		n, err := unix.Poll(pfd, 0)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, unix.EAGAIN
		}
		return int(pfd[0].Revents), nil
	case reqSendfile:
		off := r.spOffIn // fd is the socket (or its duplicate): non-blocking
		return unix.Sendfile(fd, r.spIn, &off, int(r.spLen))
	case reqSplice:
		in, out := r.spIn, r.spOut
		flags := 0
		if in == fd || out == fd { // the socket's side waits in the netpoller
			flags = unix.SPLICE_F_NONBLOCK
		}
		var offIn, offOut *int64
		if r.spOffIn >= 0 {
			o := r.spOffIn
			offIn = &o
		}
		if r.spOffOut >= 0 {
			o := r.spOffOut
			offOut = &o
		}
		n, err := unix.Splice(in, offIn, out, offOut, int(r.spLen), flags)
		return int(n), err
	}
	return 0, unix.EINVAL
}

// netpollDeadline passes r's new deadline to the netpoller.
func (s *sock) netpollDeadline(r *connReq, t time.Time) {
	if r == &s.rd {
		_ = s.np.f.SetReadDeadline(t)
	} else {
		_ = s.np.f.SetWriteDeadline(t)
	}
}
