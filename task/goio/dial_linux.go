//go:build linux

package goio

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/task"
)

// aLongTimeAgo is a deadline in the past: setting it ends a netpoller
// wait at once (net's own trick for cancelling a connect).
var aLongTimeAgo = time.Unix(1, 0)

// connectNetpoll connects a new non-blocking TCP socket to ap from the
// caller's goroutine, as net's dialer does: connect(2), then a wait for
// writability in Go's netpoller under ctx's deadline, ended early by
// ctx's cancellation; no hand-off to the executor's thread. The Conn is
// made first, so the wait is its own netpoller registration's. From a
// task of the runtime it is task.ErrWouldDeadlock, as every Env call.
func (e *Env) connectNetpoll(ctx context.Context, ex *task.Executor, network string, dom int, ap netip.AddrPort) (*Conn, error) {
	if e.rt.OnThread() {
		// From a task the wait would hold its executor's thread, as the
		// ring's CONNECT would (call refuses it there).
		return nil, task.ErrWouldDeadlock
	}
	fd, err := fdio.Socket(dom, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, sysErr("socket", err)
	}
	_ = setTCPDefaults(fd)
	c := newConn(e, ex, fd, network, nil, net.TCPAddrFromAddrPort(ap), true)
	if c.np == nil {
		_ = c.Close()
		return nil, c.npErr
	}
	f := c.np.f
	if dl, ok := ctx.Deadline(); ok {
		_ = f.SetWriteDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(aLongTimeAgo) })
	var cerr error
	started := false
	sa := sockaddr.FromAddrPort(ap)
	werr := c.np.rc.Write(func(s uintptr) bool {
		if !started {
			started = true
			switch cerr = unix.Connect(int(s), sa); cerr {
			case unix.EINPROGRESS, unix.EALREADY, unix.EINTR:
				cerr = nil
				return false // wait for writability
			case unix.EISCONN:
				cerr = nil
			}
			return true
		}
		soerr, err := unix.GetsockoptInt(int(s), unix.SOL_SOCKET, unix.SO_ERROR)
		if err != nil {
			cerr = err
			return true
		}
		switch e := unix.Errno(soerr); e {
		case unix.EINPROGRESS, unix.EALREADY, unix.EINTR:
			return false
		case 0:
			// The netpoller may wake a writer spuriously (Go issues 14548,
			// 19289): connected only when the peer is known.
			_, err := unix.Getpeername(int(s))
			return err == nil
		default:
			cerr = e
			return true
		}
	})
	if !stop() && werr == nil && cerr == nil {
		// ctx ended while the connect completed: its deadline may be on
		// the file now, so the dial fails as net's does.
		werr = os.ErrDeadlineExceeded
	}
	switch {
	case werr != nil:
		_ = c.Close()
		if err := ctx.Err(); err != nil {
			return nil, mapCtxErr(err)
		}
		if errors.Is(werr, os.ErrDeadlineExceeded) {
			return nil, mapCtxErr(context.DeadlineExceeded)
		}
		return nil, net.ErrClosed // the runtime closed the executor's sockets
	case cerr != nil:
		_ = c.Close()
		return nil, os.NewSyscallError("connect", cerr)
	}
	_ = f.SetWriteDeadline(time.Time{})
	if !c.control(func(fd int) { c.laddr, err = localAddr(fd, network) }) {
		err = net.ErrClosed // the runtime closed the executor's sockets
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}
