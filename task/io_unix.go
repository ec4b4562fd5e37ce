//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package task

import (
	"net/netip"
	"os"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task/internal/iop"
)

// The awaits on raw fds of every Unix. On io_uring each is one request (the
// opcode and the release that added it are named); on the fallback, a
// socket or pipe is tried without blocking and waited for on the
// executor's epoll or kqueue, a regular file, an open or a sync runs on a
// goroutine while only the task parks.

// Read reads into buf at off (CurrentPos: the file position), returning
// the byte count (IORING_OP_READ, 5.6). 0 means end of file. Bytes a
// multishot loop of fd consumed and did not yield come first (see the
// multishot rules).
func (t *T) Read(fd int, buf []byte, off int64) (int, error) {
	op := t.ex.prep(iop.Read, fd)
	op.Buf, op.Off = buf, off
	return t.await()
}

// Write writes buf at off (IORING_OP_WRITE, 5.6).
func (t *T) Write(fd int, buf []byte, off int64) (int, error) {
	op := t.ex.prep(iop.Write, fd)
	op.Buf, op.Off = buf, off
	return t.await()
}

// Recv receives into buf (IORING_OP_RECV, 5.6); 0 means the peer shut down.
// Bytes a multishot loop of fd received and did not yield come first
// (MSG_PEEK sees them without taking them).
func (t *T) Recv(fd int, buf []byte, flags int) (int, error) {
	op := t.ex.prep(iop.Recv, fd)
	op.Buf, op.Flags = buf, flags
	return t.await()
}

// Send sends buf (IORING_OP_SEND, 5.6); MSG_NOSIGNAL is added.
func (t *T) Send(fd int, buf []byte, flags int) (int, error) {
	op := t.ex.prep(iop.Send, fd)
	op.Buf, op.Flags = buf, flags
	return t.await()
}

// Socket creates a socket and returns its fd (IORING_OP_SOCKET, 5.19);
// SOCK_CLOEXEC is added.
func (t *T) Socket(domain, typ, proto int) (int, error) {
	op := t.ex.prep(iop.Socket, -1)
	op.Fd2, op.Flags, op.Mode = domain, typ, uint32(proto)
	fd, err := t.await()
	if err != nil {
		return -1, err
	}
	return fd, nil
}

// Connect connects fd to addr (IORING_OP_CONNECT, 5.5); on the fallback the
// wait ends with the task's context.
func (t *T) Connect(fd int, addr netip.AddrPort) error {
	if !addr.IsValid() {
		return argError("Connect", "addr", "is not a valid IP address and port")
	}
	t.ex.prep(iop.Connect, fd).Addr = addr
	_, err := t.await()
	return err
}

// Accept accepts a connection on fd and returns the new fd and the peer
// (IORING_OP_ACCEPT, 5.5); SOCK_CLOEXEC is added (SOCK_NONBLOCK in flags
// makes it non-blocking). If the task's context is cancelled and the
// accept completes anyway, the new fd is closed. On the fallback the
// listening socket is made non-blocking, as Go's net keeps its listeners.
func (t *T) Accept(fd int, flags int) (int, netip.AddrPort, error) {
	t.ex.prep(iop.Accept, fd).Flags = flags
	nfd, err := t.await()
	if err != nil {
		return -1, netip.AddrPort{}, err
	}
	return nfd, t.io.Peer, nil
}

// Shutdown shuts down part of a full-duplex connection (unix.SHUT_WR ...)
// (IORING_OP_SHUTDOWN, 5.11).
func (t *T) Shutdown(fd, how int) error {
	t.ex.prep(iop.Shutdown, fd).Flags = how
	_, err := t.await()
	return err
}

// Openat opens path relative to dirfd (unix.AT_FDCWD for the working
// directory) and returns the new fd (IORING_OP_OPENAT, 5.6). O_CLOEXEC is
// added. If the task's context is cancelled and the open completes anyway,
// the fd is closed.
func (t *T) Openat(dirfd int, path string, flags int, mode uint32) (int, error) {
	op := t.ex.prep(iop.Openat, dirfd)
	op.Path, op.Flags, op.Mode = path, flags, mode
	fd, err := t.await()
	if err != nil {
		return -1, err
	}
	return fd, nil
}

// Open is Openat relative to the working directory, with os.Open's error:
// an *os.PathError with Op "open", the path, and the cause (the errno, the
// context's error, ErrClosed, or the *ArgError of a bad path), so
// os.IsNotExist(err) and errors.Is(err, fs.ErrNotExist) hold for a missing
// file. (Openat returns the *OpError.)
func (t *T) Open(path string, flags int, mode uint32) (int, error) {
	fd, err := t.Openat(unix.AT_FDCWD, path, flags, mode)
	if err != nil {
		return -1, openError(path, err)
	}
	return fd, nil
}

// openError is Open's error for path: an *os.PathError whose Err is the
// cause an *OpError carries (os.IsNotExist looks at a PathError's Err only),
// or err itself.
func openError(path string, err error) error {
	if oe, ok := err.(*OpError); ok && oe.Err != nil {
		err = oe.Err
	}
	return &os.PathError{Op: "open", Path: path, Err: err}
}

// Close closes fd (IORING_OP_CLOSE, 5.6). It runs even when the task's
// context is cancelled, and while the executor closes.
func (t *T) Close(fd int) error {
	t.ex.prep(iop.Close, fd)
	_, err := t.await()
	return err
}

// Fsync flushes fd (IORING_OP_FSYNC, 5.1); flags may be
// sys.FsyncDatasync (Linux).
func (t *T) Fsync(fd int, flags uint32) error {
	t.ex.prep(iop.Fsync, fd).Flags = int(flags)
	_, err := t.await()
	return err
}

// Poll waits until fd has one of events (unix.POLLIN ...) and returns the
// events that are ready (IORING_OP_POLL_ADD, 5.1).
func (t *T) Poll(fd int, events uint32) (uint32, error) {
	t.ex.prep(iop.Poll, fd).Events = events
	ev, err := t.await()
	return uint32(ev), err
}
