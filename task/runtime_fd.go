//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package task

import (
	"context"
	"net/netip"
)

// The runtime's calls on raw fds, for goroutines (Linux, macOS and the BSDs; elsewhere
// use the adapters, Listen, Dial and OpenFile).

// ReadAt reads into buf at off from fd.
func (rt *Runtime) ReadAt(ctx context.Context, fd int, buf []byte, off int64) (int, error) {
	return call(ctx, rt.Pick(), func(t *T) (int, error) { return t.Read(fd, buf, off) })
}

// WriteAt writes buf at off to fd.
func (rt *Runtime) WriteAt(ctx context.Context, fd int, buf []byte, off int64) (int, error) {
	return call(ctx, rt.Pick(), func(t *T) (int, error) { return t.Write(fd, buf, off) })
}

// Open opens path and returns the fd.
func (rt *Runtime) Open(ctx context.Context, path string, flags int, mode uint32) (int, error) {
	return call(ctx, rt.Pick(), func(t *T) (int, error) { return t.Open(path, flags, mode) })
}

// CloseFd closes fd.
func (rt *Runtime) CloseFd(ctx context.Context, fd int) error {
	_, err := call(ctx, rt.Pick(), func(t *T) (struct{}, error) { return struct{}{}, t.Close(fd) })
	return err
}

// Fsync flushes fd.
func (rt *Runtime) Fsync(ctx context.Context, fd int) error {
	_, err := call(ctx, rt.Pick(), func(t *T) (struct{}, error) { return struct{}{}, t.Fsync(fd, 0) })
	return err
}

// Accept accepts a connection on the listening socket fd.
func (rt *Runtime) Accept(ctx context.Context, fd int) (int, netip.AddrPort, error) {
	type acc struct {
		fd   int
		peer netip.AddrPort
	}
	a, err := call(ctx, rt.Pick(), func(t *T) (acc, error) {
		nfd, peer, err := t.Accept(fd, 0)
		return acc{nfd, peer}, err
	})
	return a.fd, a.peer, err
}

// Recv receives into buf from fd.
func (rt *Runtime) Recv(ctx context.Context, fd int, buf []byte) (int, error) {
	return call(ctx, rt.Pick(), func(t *T) (int, error) { return t.Recv(fd, buf, 0) })
}

// Send sends buf on fd.
func (rt *Runtime) Send(ctx context.Context, fd int, buf []byte) (int, error) {
	return call(ctx, rt.Pick(), func(t *T) (int, error) { return t.Send(fd, buf, 0) })
}
