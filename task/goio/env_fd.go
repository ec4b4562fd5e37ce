//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package goio

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"syscall"

	"github.com/pure-uring/uring/task"
)

// The runtime's blocking calls on raw fds, for goroutines (Linux, macOS and
// the BSDs; elsewhere use the adapters, Listen, Dial and OpenFile). Each
// runs as a task on the runtime's next executor (Runtime.NextExecutor) and returns
// after the operation's completion, also when ctx was cancelled (then with
// ctx's error): the buffer is free again when it returns. From a task of
// the runtime each returns task.ErrWouldDeadlock.

// Pread reads into buf at off from fd, as pread(2) does (and read(2) with
// off task.CurrentPos): a count short of len(buf) is not an error, and 0
// with a nil error is the end of the file. It is not io.ReaderAt, whose
// short reads are errors: *File is.
func (e *Env) Pread(ctx context.Context, fd int, buf []byte, off int64) (int, error) {
	if e == nil {
		return 0, nilReceiver("Env.Pread")
	}
	return call(ctx, e.rt, e.rt.NextExecutor(), func(t *task.T) (int, error) { return t.Read(fd, buf, off) })
}

// Pwrite writes buf at off to fd, as pwrite(2) does: one write, whose
// count may be short of len(buf) without an error (a pipe or socket that
// took part). *File's WriteAt writes it all.
func (e *Env) Pwrite(ctx context.Context, fd int, buf []byte, off int64) (int, error) {
	if e == nil {
		return 0, nilReceiver("Env.Pwrite")
	}
	return call(ctx, e.rt, e.rt.NextExecutor(), func(t *task.T) (int, error) { return t.Write(fd, buf, off) })
}

// Open opens path and returns the fd. Its error is os.Open's: an
// *os.PathError with Op "open", the path and the cause (the errno where
// there is one, else the error: ctx's, task.ErrWouldDeadlock, ...), so
// os.IsNotExist(err) and errors.Is(err, fs.ErrNotExist) hold for a
// missing file.
func (e *Env) Open(ctx context.Context, path string, flags int, mode uint32) (int, error) {
	if e == nil {
		return -1, nilReceiver("Env.Open")
	}
	fd, err := call(ctx, e.rt, e.rt.NextExecutor(), func(t *task.T) (int, error) { return t.Open(path, flags, mode) })
	if err != nil {
		return -1, openError(path, err)
	}
	return fd, nil
}

// openError is the *os.PathError of a failed open of name with the cause
// os would give: the bare errno where there is one (in task.T.Open's
// PathError, or the EINVAL of an *ArgError), else the error itself.
func openError(name string, err error) error {
	if pe, ok := err.(*os.PathError); ok {
		err = pe.Err
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		err = errno
	}
	return &os.PathError{Op: "open", Path: name, Err: err}
}

// CloseFd closes fd.
func (e *Env) CloseFd(ctx context.Context, fd int) error {
	if e == nil {
		return nilReceiver("Env.CloseFd")
	}
	_, err := call(ctx, e.rt, e.rt.NextExecutor(), func(t *task.T) (struct{}, error) { return struct{}{}, t.Close(fd) })
	return err
}

// Fsync flushes fd.
func (e *Env) Fsync(ctx context.Context, fd int) error {
	if e == nil {
		return nilReceiver("Env.Fsync")
	}
	_, err := call(ctx, e.rt, e.rt.NextExecutor(), func(t *task.T) (struct{}, error) { return struct{}{}, t.Fsync(fd, 0) })
	return err
}

// Accept accepts a connection on the listening socket fd.
func (e *Env) Accept(ctx context.Context, fd int) (int, netip.AddrPort, error) {
	if e == nil {
		return -1, netip.AddrPort{}, nilReceiver("Env.Accept")
	}
	type acc struct {
		fd   int
		peer netip.AddrPort
	}
	a, err := call(ctx, e.rt, e.rt.NextExecutor(), func(t *task.T) (acc, error) {
		nfd, peer, err := t.Accept(fd, 0)
		return acc{nfd, peer}, err
	})
	return a.fd, a.peer, err
}

// Recv receives into buf from fd.
func (e *Env) Recv(ctx context.Context, fd int, buf []byte) (int, error) {
	if e == nil {
		return 0, nilReceiver("Env.Recv")
	}
	return call(ctx, e.rt, e.rt.NextExecutor(), func(t *task.T) (int, error) { return t.Recv(fd, buf, 0) })
}

// Send sends buf on fd.
func (e *Env) Send(ctx context.Context, fd int, buf []byte) (int, error) {
	if e == nil {
		return 0, nilReceiver("Env.Send")
	}
	return call(ctx, e.rt, e.rt.NextExecutor(), func(t *task.T) (int, error) { return t.Send(fd, buf, 0) })
}
