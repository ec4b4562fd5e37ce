//go:build linux

package task

import (
	"context"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
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
		return nil, argError("Listen", "network", "must be tcp, tcp4 or tcp6")
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
	a, err := call(l.ctx, ex, func(t *T) (acc, error) {
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
	fd, err := call(ctx, ex, func(t *T) (int, error) {
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

// Conn is a net.Conn whose reads and writes are io_uring RECV/SEND on one
// executor, for ordinary goroutines (never call it from a task: the task
// would block its executor). Each direction owns one preallocated request
// that goes through the executor's inbox and is submitted directly, no
// task per call; the executor signals its completion on a reusable
// channel. A deadline is a LINK_TIMEOUT on the SQE; changing it, and
// Close, cancel a request in flight (ASYNC_CANCEL). The fd is closed only
// after both directions returned, so its number cannot be reused under an
// operation.
type Conn struct {
	ex           *Executor
	fd           int
	laddr, raddr net.Addr
	closed       atomic.Bool

	rmu, wmu sync.Mutex // one reader, one writer at a time (each owns its request)
	rd, wr   connReq
	g        fdGuard // calls outside Read and Write (CloseWrite)
}

// connReq is one direction's request. The caller sets buf and posts it;
// the executor fills the slot, and on the CQE sets res and signals done.
type connReq struct {
	c        *Conn
	write    bool
	buf      []byte
	done     chan struct{} // 1-buffered
	res      int32
	dl       atomic.Int64  // deadline in UnixNano; 0: none
	seq      atomic.Uint32 // bumped when the deadline changes
	inflight atomic.Bool   // posted, done not yet received

	// Executor thread; read by the caller after done.
	sl    *opSlot
	slTok poll.Token
	opSeq uint32 // seq the request was submitted under
	opDl  int64  // deadline it was submitted with
}

func newConn(ex *Executor, fd int, laddr, raddr net.Addr) *Conn {
	c := &Conn{ex: ex, fd: fd, laddr: laddr, raddr: raddr}
	c.rd = connReq{c: c, done: make(chan struct{}, 1)}
	c.wr = connReq{c: c, write: true, done: make(chan struct{}, 1)}
	return c
}

// maxIO bounds one RECV/SEND (the SQE's length is 32 bits).
const maxIO = 1 << 30

// do runs one RECV or SEND of b under r's deadline, submitting it again
// when the deadline changed while it waited.
func (c *Conn) do(r *connReq, op string, b []byte) (int, error) {
	for {
		if c.closed.Load() {
			return 0, c.opErr(op, net.ErrClosed)
		}
		if dl := r.dl.Load(); dl != 0 && time.Now().UnixNano() >= dl {
			return 0, c.opErr(op, os.ErrDeadlineExceeded)
		}
		if c.ex.closeReq.Load() {
			return 0, c.opErr(op, net.ErrClosed)
		}
		if n, err, done := c.direct(r, op, b); done {
			return n, err
		}
		r.buf = b
		r.inflight.Store(true)
		c.ex.post(remoteMsg{kind: msgConnIO, req: r})
		<-r.done
		r.inflight.Store(false)
		r.buf = nil
		res := r.res
		if res >= 0 {
			return int(res), nil
		}
		errno := unix.Errno(-res)
		if errno == unix.ECANCELED || errno == unix.EINTR {
			switch {
			case c.closed.Load() || c.ex.closeReq.Load():
				return 0, c.opErr(op, net.ErrClosed)
			case r.seq.Load() != r.opSeq || errno == unix.EINTR:
				continue // the deadline changed, or interrupted: again
			case r.opDl != 0:
				return 0, c.opErr(op, os.ErrDeadlineExceeded) // the LINK_TIMEOUT fired
			}
		}
		return 0, c.opErr(op, os.NewSyscallError(op, errno))
	}
}

// direct tries the socket without blocking (MSG_DONTWAIT), from the
// caller's goroutine; done is false when it would block (EAGAIN), and the
// request then goes to the ring. The caller holds r's mutex, which Close
// takes before closing the fd, so the fd cannot be closed or reused under
// the syscall.
func (c *Conn) direct(r *connReq, op string, b []byte) (n int, err error, done bool) {
	if r.write {
		n, err = sys.SendNonblock(c.fd, b)
	} else {
		n, err = sys.RecvNonblock(c.fd, b)
	}
	if err == nil {
		return n, nil, true
	}
	errno, _ := err.(unix.Errno)
	if errno == unix.EAGAIN || errno == unix.EINTR {
		return 0, nil, false
	}
	if errno == 0 {
		return 0, c.opErr(op, err), true
	}
	return 0, c.opErr(op, os.NewSyscallError(op, errno)), true
}

func (c *Conn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.laddr, Addr: c.raddr, Err: err}
}

// Read reads into b; io.EOF when the peer shut down.
func (c *Conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if len(b) > maxIO {
		b = b[:maxIO]
	}
	c.rmu.Lock()
	n, err := c.do(&c.rd, "read", b)
	c.rmu.Unlock()
	if err == nil && n == 0 {
		return 0, io.EOF
	}
	return n, err
}

// Write writes all of b.
func (c *Conn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	total := 0
	for total < len(b) {
		rest := b[total:]
		if len(rest) > maxIO {
			rest = rest[:maxIO]
		}
		n, err := c.do(&c.wr, "write", rest)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Close interrupts reads and writes in flight and closes the socket.
func (c *Conn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return c.opErr("close", net.ErrClosed)
	}
	// A request posted after these loads finds closed set when the
	// executor takes it, and completes without being submitted.
	for _, r := range []*connReq{&c.rd, &c.wr} {
		if r.inflight.Load() {
			c.ex.post(remoteMsg{kind: msgConnCancel, req: r})
		}
	}
	c.g.close()
	c.rmu.Lock()
	c.wmu.Lock()
	err := sys.Close(c.fd)
	c.wmu.Unlock()
	c.rmu.Unlock()
	if err != nil {
		return c.opErr("close", err)
	}
	return nil
}

// CloseWrite shuts down the writing side.
func (c *Conn) CloseWrite() error {
	if c.closed.Load() || !c.g.begin() {
		return c.opErr("close", net.ErrClosed)
	}
	defer c.g.end()
	_, err := call(context.Background(), c.ex, func(t *T) (struct{}, error) { return struct{}{}, t.Shutdown(c.fd, unix.SHUT_WR) })
	return err
}

func (c *Conn) LocalAddr() net.Addr  { return c.laddr }
func (c *Conn) RemoteAddr() net.Addr { return c.raddr }

// setDeadline stores r's deadline; a request in flight under another one
// is cancelled and submitted again by its caller (or fails, if the new
// deadline has passed).
func (c *Conn) setDeadline(r *connReq, t time.Time) {
	var dl int64
	if !t.IsZero() {
		if dl = t.UnixNano(); dl == 0 {
			dl = 1
		}
	}
	if r.dl.Swap(dl) == dl {
		return
	}
	r.seq.Add(1)
	if r.inflight.Load() {
		c.ex.post(remoteMsg{kind: msgConnCancel, req: r})
	}
}

// SetDeadline sets both deadlines; a wait in flight sees the new one.
func (c *Conn) SetDeadline(t time.Time) error {
	c.setDeadline(&c.rd, t)
	c.setDeadline(&c.wr, t)
	return nil
}

// SetReadDeadline sets the read deadline; a past one unblocks a Read.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.setDeadline(&c.rd, t)
	return nil
}

// SetWriteDeadline sets the write deadline.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.setDeadline(&c.wr, t)
	return nil
}

// connStart submits r's RECV or SEND (executor thread).
func (ex *Executor) connStart(r *connReq) {
	if ex.closing || r.c.closed.Load() {
		r.complete(-int32(unix.ECANCELED))
		return
	}
	r.opSeq = r.seq.Load()
	r.opDl = r.dl.Load()
	if r.opDl != 0 && time.Now().UnixNano() >= r.opDl {
		r.complete(-int32(unix.ECANCELED))
		return
	}
	sl := ex.allocSlot()
	need := uint32(1)
	if r.opDl != 0 {
		need = 2
	}
	s, err := ex.sqeRoom(need)
	if err != nil {
		ex.freeSlot(sl)
		r.complete(-int32(unix.EBUSY))
		return
	}
	if r.write {
		err = sqe.Send(s, r.c.fd, r.buf, unix.MSG_NOSIGNAL)
	} else {
		err = sqe.Recv(s, r.c.fd, r.buf, 0)
	}
	if err != nil {
		sqe.Nop(s)
		s.UserData = udIgnore
		ex.freeSlot(sl)
		r.complete(-int32(unix.EINVAL))
		return
	}
	sl.keepBytes(r.buf)
	s.UserData = sl.ud()
	if r.opDl != 0 {
		ex.linkTimeout(s, sl, time.Unix(0, r.opDl))
	}
	sl.req, sl.heavy = r, true
	r.sl, r.slTok = sl, sl.tok
}

// connCancel cancels r's request if it is in flight (executor thread).
func (ex *Executor) connCancel(r *connReq) {
	if sl := r.sl; sl != nil && sl.inUse && sl.tok == r.slTok && sl.req == r {
		ex.cancelOp(sl)
	}
}

// complete hands res to the caller waiting on r.
func (r *connReq) complete(res int32) {
	r.sl = nil
	r.res = res
	r.done <- struct{}{}
}
