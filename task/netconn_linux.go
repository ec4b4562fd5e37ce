//go:build linux

package task

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Listener is a net.Listener whose Accept runs on the runtime; net/http
// serves on it unchanged.
type Listener struct {
	rt     *Runtime
	file   *os.File // owns the listening fd
	fd     int
	addr   net.Addr
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
}

// Listen listens on a TCP address (net.Listen makes the socket; every
// accept, read and write then goes through io_uring).
func (rt *Runtime) Listen(network, address string) (*Listener, error) {
	nl, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	tl, ok := nl.(*net.TCPListener)
	if !ok {
		nl.Close()
		return nil, &ArgError{"Listen", "network", "must be tcp, tcp4 or tcp6"}
	}
	f, err := tl.File() // a dup of the socket
	addr := nl.Addr()
	nl.Close()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Listener{rt: rt, file: f, fd: int(f.Fd()), addr: addr, ctx: ctx, cancel: cancel}, nil
}

// Accept waits for a connection; Close unblocks it with net.ErrClosed.
func (l *Listener) Accept() (net.Conn, error) {
	ex := l.rt.Pick()
	type acc struct {
		fd   int
		peer netip.AddrPort
	}
	a, err := call(ex, l.ctx, func(t *T) (acc, error) {
		fd, peer, err := t.Accept(l.fd, 0)
		return acc{fd, peer}, err
	})
	if err != nil {
		if l.ctx.Err() != nil {
			err = net.ErrClosed
		}
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: err}
	}
	return newConn(ex, a.fd, l.addr, net.TCPAddrFromAddrPort(a.peer)), nil
}

// Close stops accepting.
func (l *Listener) Close() error {
	err := net.ErrClosed
	l.once.Do(func() {
		l.cancel()
		err = l.file.Close()
	})
	return err
}

// Addr returns the listening address.
func (l *Listener) Addr() net.Addr { return l.addr }

// Dial connects to a TCP address through io_uring (SOCKET + CONNECT).
func (rt *Runtime) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	ra, err := net.ResolveTCPAddr(network, address)
	if err != nil {
		return nil, err
	}
	ap := ra.AddrPort()
	dom := unix.AF_INET6
	if ap.Addr().Is4() || ap.Addr().Is4In6() {
		ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		dom = unix.AF_INET
	}
	ex := rt.Pick()
	fd, err := call(ex, ctx, func(t *T) (int, error) {
		fd, err := t.Socket(dom, unix.SOCK_STREAM, 0)
		if err != nil {
			return -1, err
		}
		if err := t.Connect(fd, ap); err != nil {
			_ = t.Close(fd)
			return -1, err
		}
		return fd, nil
	})
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: ra, Err: err}
	}
	return newConn(ex, fd, nil, ra), nil
}

var errDeadlineChanged = errors.New("task: deadline changed")

// Conn is a net.Conn whose reads and writes are io_uring RECV/SEND on one
// executor. Deadlines and Close interrupt operations in flight
// (ASYNC_CANCEL); the fd is closed only after they returned, so its number
// cannot be reused under them.
type Conn struct {
	ex           *Executor
	fd           int
	laddr, raddr net.Addr
	ctx          context.Context
	cancel       context.CancelFunc

	mu     sync.Mutex
	closed bool
	ops    sync.WaitGroup
	rd, wd deadline
}

type deadline struct {
	at     time.Time
	cancel context.CancelCauseFunc
}

func newConn(ex *Executor, fd int, laddr, raddr net.Addr) *Conn {
	ctx, cancel := context.WithCancel(context.Background())
	return &Conn{ex: ex, fd: fd, laddr: laddr, raddr: raddr, ctx: ctx, cancel: cancel}
}

// io runs one RECV or SEND under the deadline d, retrying when the
// deadline is changed while it waits.
func (c *Conn) io(op string, d *deadline, fn func(t *T) (int, error)) (int, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return 0, c.opErr(op, net.ErrClosed)
		}
		at := d.at
		if !at.IsZero() && !time.Now().Before(at) {
			c.mu.Unlock()
			return 0, c.opErr(op, os.ErrDeadlineExceeded)
		}
		ctx, cancel := context.WithCancelCause(c.ctx)
		opCtx, cancelT := ctx, context.CancelFunc(func() {})
		if !at.IsZero() {
			opCtx, cancelT = context.WithDeadline(ctx, at)
		}
		d.cancel = cancel
		c.ops.Add(1)
		c.mu.Unlock()

		n, err := call(c.ex, opCtx, fn)
		cancelT()
		c.ops.Done()
		c.mu.Lock()
		d.cancel = nil
		c.mu.Unlock()
		cause := context.Cause(ctx)
		cancel(nil)
		if err == nil {
			return n, nil
		}
		switch {
		case c.ctx.Err() != nil:
			return n, c.opErr(op, net.ErrClosed)
		case errors.Is(cause, errDeadlineChanged):
			continue
		case errors.Is(err, context.DeadlineExceeded):
			return n, c.opErr(op, os.ErrDeadlineExceeded)
		}
		return n, c.opErr(op, err)
	}
}

func (c *Conn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.laddr, Addr: c.raddr, Err: err}
}

// Read reads into b; io.EOF when the peer shut down.
func (c *Conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := c.io("read", &c.rd, func(t *T) (int, error) { return t.Recv(c.fd, b, 0) })
	if err == nil && n == 0 {
		return 0, io.EOF
	}
	return n, err
}

// Write writes all of b.
func (c *Conn) Write(b []byte) (int, error) {
	total := 0
	for total < len(b) {
		rest := b[total:]
		n, err := c.io("write", &c.wd, func(t *T) (int, error) { return t.Send(c.fd, rest, 0) })
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Close interrupts reads and writes in flight and closes the socket.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return c.opErr("close", net.ErrClosed)
	}
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.ops.Wait()
	_, err := call(c.ex, context.Background(), func(t *T) (struct{}, error) { return struct{}{}, t.Close(c.fd) })
	return err
}

// CloseWrite shuts down the writing side.
func (c *Conn) CloseWrite() error {
	_, err := call(c.ex, c.ctx, func(t *T) (struct{}, error) { return struct{}{}, t.Shutdown(c.fd, unix.SHUT_WR) })
	return err
}

func (c *Conn) LocalAddr() net.Addr  { return c.laddr }
func (c *Conn) RemoteAddr() net.Addr { return c.raddr }

func (c *Conn) setDeadline(d *deadline, at time.Time) {
	d.at = at
	if d.cancel != nil {
		d.cancel(errDeadlineChanged)
	}
}

// SetDeadline sets both deadlines; a wait in flight sees the new one.
func (c *Conn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setDeadline(&c.rd, t)
	c.setDeadline(&c.wd, t)
	return nil
}

// SetReadDeadline sets the read deadline; a past one unblocks a Read.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setDeadline(&c.rd, t)
	return nil
}

// SetWriteDeadline sets the write deadline.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setDeadline(&c.wd, t)
	return nil
}
