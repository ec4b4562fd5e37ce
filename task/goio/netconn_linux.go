//go:build linux

package goio

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdguard"
	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
	"github.com/pure-uring/uring/task/goio/internal/zerocopy"
)

// sock is what a Conn and a PacketConn share: the fd, the executor its
// ring waits run on, one request per direction, and the close protocol.
// By default (and always on the fallback backend) a request runs on the
// caller's goroutine and waits for readiness in Go's netpoller (npFile).
// With task.WithRingConnWaits what would block runs as a task on the
// executor instead (ringIO): RECV, SEND, SPLICE, POLL_ADD, RECVMSG or
// SENDMSG awaited with the request's deadline as its context's (a
// LINK_TIMEOUT, and an ASYNC_CANCEL when it passes); changing the
// deadline, and Close, cancel the wait in flight. The fd is closed only
// after both directions returned, so its number cannot be reused under an
// operation.
type sock struct {
	env          *Env
	ex           *task.Executor // where its ring waits run
	reg          *closers       // ex's registry: its Close closes the netpoller's file
	ring         bool           // task.WithRingConnWaits: waits go through ex's ring
	fd           int
	net          string // the network, as net.OpError names it
	laddr, raddr net.Addr
	closed       atomic.Bool

	rmu, wmu sync.Mutex // one reader, one writer at a time (each owns its request)
	rd, wr   connReq
	g        fdguard.Guard // calls outside the two directions (options, shutdown, Control)
	npErr    error         // why the fd could not be registered with the netpoller
	np       *npFile       // the netpoller's registration; nil with ring waits
}

// reqOp is what a connReq does.
type reqOp uint8

const (
	reqRecv     reqOp = iota // RECV into buf
	reqSend                  // SEND of buf
	reqSplice                // SPLICE with the sp* arguments
	reqPoll                  // POLL_ADD for events
	reqRecvmsg               // RECVMSG into buf, the sender into m
	reqSendmsg               // SENDMSG of buf to the address in m
	reqSendfile              // sendfile(2) of spLen bytes of spIn from spOffIn (netpoller waits only)
)

// connReq is one direction's request: its deadline, and the arguments of
// an operation besides its buffer, set by the caller under the
// direction's mutex.
type connReq struct {
	dl  atomic.Int64               // deadline in UnixNano; 0: none
	seq atomic.Uint32              // bumped when the deadline changes
	w   atomic.Pointer[ringWaiter] // the ring waits' task, under the current deadline

	spIn, spOut       int
	spOffIn, spOffOut int64
	spLen             uint32
	events            uint32
	m                 *msgBufs // reqRecvmsg, reqSendmsg: a PacketConn's
}

// msgBufs is the msghdr of a datagram request and what it points at; the
// kernel holds them until the operation completes (pinned meanwhile).
type msgBufs struct {
	msg  unix.Msghdr
	iov  unix.Iovec
	name [128]byte // struct sockaddr_storage
}

// init sets s up on executor ex of env; nonblock: fd is non-blocking
// already.
func (s *sock) init(env *Env, ex *task.Executor, fd int, network string, laddr, raddr net.Addr, nonblock bool) {
	s.env, s.ex, s.reg = env, ex, env.regs[ex]
	s.ring = ex.RingConnWaits()
	s.fd, s.net, s.laddr, s.raddr = fd, network, laddr, raddr
	if !s.ring {
		if err := s.initNetpoll(nonblock); err != nil {
			s.npErr = err
		}
	}
}

// maxIO bounds one RECV/SEND (the SQE's length is 32 bits).
const maxIO = 1 << 30

// io runs one request of kind op (b: its buffer) under r's deadline. The
// caller holds r's mutex. Errors are the cause alone (net.ErrClosed,
// os.ErrDeadlineExceeded, an *os.SyscallError named name); the caller
// wraps them in a *net.OpError.
func (s *sock) io(r *connReq, name string, op reqOp, b []byte) (int, error) {
	if !s.ring {
		if s.np == nil {
			return 0, s.npErr
		}
		return s.netpollIO(r, name, op, b)
	}
	return s.ringIO(r, name, op, b)
}

// The kernel-internal errnos of include/linux/errno.h (ERESTARTSYS ...
// ERESTART_RESTARTBLOCK), which an interrupted io-wq worker (a cancelled
// SPLICE) may leak: "interrupted".
const (
	errRestartSys   unix.Errno = 512
	errRestartBlock unix.Errno = 516
)

// ringIO is io through the executor's ring: the socket is tried from the
// caller's goroutine first (RECV and SEND); what would block is handed to
// the direction's ringWaiter, a task on the executor that awaits the
// operation under r's deadline. A new deadline or Close cancels the
// waiter (and the operation in flight); after a new deadline the
// operation is handed to a new waiter.
func (s *sock) ringIO(r *connReq, name string, op reqOp, b []byte) (int, error) {
	if s.env.rt.OnThread() {
		return 0, task.ErrWouldDeadlock // the wait would hold the executor's thread
	}
	for {
		if s.closed.Load() {
			return 0, net.ErrClosed
		}
		seq := r.seq.Load()
		dl := r.dl.Load()
		if dl != 0 && time.Now().UnixNano() >= dl {
			return 0, os.ErrDeadlineExceeded
		}
		if op <= reqSend {
			if n, err, done := s.direct(op, name, b); done {
				return n, err
			}
		}
		w := r.w.Load()
		if w == nil || w.seq != seq || w.ctx.Err() != nil {
			if w != nil {
				w.cancel()
			}
			w = s.newRingWaiter(r, seq, dl)
			r.w.Store(w)
			if s.closed.Load() || r.seq.Load() != seq {
				w.cancel() // Close or a new deadline came before the store
			}
		}
		n, err, answered := w.do(op, b)
		if !answered {
			// The waiter ended first (cancelled while idle, or the
			// executor stopped): the operation never started.
			err = w.ctx.Err()
			if err == nil {
				err = task.ErrClosed
			}
		}
		if err == nil {
			return n, nil
		}
		var errno unix.Errno
		switch {
		case s.closed.Load() || errors.Is(err, task.ErrClosed):
			return 0, net.ErrClosed // Close, or the executor's Close
		case r.seq.Load() != seq:
			continue // the deadline changed: again, under the new one
		case errors.Is(err, context.DeadlineExceeded):
			return 0, os.ErrDeadlineExceeded
		case errors.Is(err, context.Canceled):
			continue // its waiter was cancelled for a deadline since replaced
		case errors.As(err, &errno):
			if errno == unix.EINTR || (errno >= errRestartSys && errno <= errRestartBlock) {
				continue // interrupted: again
			}
			return 0, os.NewSyscallError(name, errno)
		}
		return 0, err
	}
}

// ringWaiter is the task of one direction of a sock that awaits the
// operations a goroutine hands it (task.WithRingConnWaits), one at a time:
// the goroutine fills in the request and notifies the task, which awaits
// the operation on the ring and answers on done. It lives under one
// deadline (seq, the context's deadline): its context is the operations'
// (a LINK_TIMEOUT for the deadline, ASYNC_CANCEL when it is cancelled);
// a new deadline and Close cancel it, and it ends. In steady state a
// hand-off allocates nothing.
type ringWaiter struct {
	s      *sock
	r      *connReq
	seq    uint32 // r's deadline sequence it serves
	ctx    context.Context
	cancel context.CancelFunc
	note   *task.Notifier
	done   chan struct{} // 1-buffered: the answer to the request is in n, err
	ended  chan struct{} // closed when the task ends

	// The request, written by the goroutine before Notify (which orders
	// it before the task's Wait returns); the answer, written by the task
	// before it sends on done.
	op  reqOp
	b   []byte
	n   int
	err error
}

// newRingWaiter starts the waiter of r for deadline sequence seq (dl: its
// deadline, 0 for none) on s's executor.
func (s *sock) newRingWaiter(r *connReq, seq uint32, dl int64) *ringWaiter {
	w := &ringWaiter{s: s, r: r, seq: seq, note: task.NewNotifier(s.ex), done: make(chan struct{}, 1), ended: make(chan struct{})}
	if dl != 0 {
		w.ctx, w.cancel = context.WithDeadline(context.Background(), time.Unix(0, dl))
	} else {
		w.ctx, w.cancel = context.WithCancel(context.Background())
	}
	task.SpawnOn(w.ctx, s.ex, w.run)
	return w
}

// run is the waiter's task: each notification is a request, answered on
// done; a cancelled context or the executor's Close ends it.
func (w *ringWaiter) run(t *task.T) (struct{}, error) {
	defer close(w.ended)
	for {
		if err := w.note.Wait(t); err != nil {
			return struct{}{}, err
		}
		w.n, w.err = w.s.ringOp(t, w.r, w.op, w.b)
		w.done <- struct{}{}
		if w.ctx.Err() != nil {
			return struct{}{}, nil // cancelled: the next request gets a new waiter
		}
	}
}

// do hands the waiter one operation and waits for its answer; answered is
// false when the waiter ended without starting it. It returns only once
// the operation completed (the kernel no longer holds b), or never
// started.
func (w *ringWaiter) do(op reqOp, b []byte) (n int, err error, answered bool) {
	w.op, w.b = op, b
	w.note.Notify()
	select {
	case <-w.done:
		answered = true
	case <-w.ended:
	case <-w.s.ex.Done(): // the task never ran: the executor stopped first
	}
	if !answered {
		// The task sends its answer before it ends.
		select {
		case <-w.done:
			answered = true
		default:
		}
	}
	n, err = w.n, w.err
	w.b, w.n, w.err = nil, 0, nil
	return n, err, answered
}

// ringOp is r's operation, awaited by a task on s's executor.
func (s *sock) ringOp(t *task.T, r *connReq, op reqOp, b []byte) (int, error) {
	switch op {
	case reqRecv:
		return t.Recv(s.fd, b, 0)
	case reqSend:
		return t.Send(s.fd, b, 0)
	case reqSplice:
		return t.Splice(r.spIn, r.spOffIn, r.spOut, r.spOffOut, r.spLen, 0)
	case reqPoll:
		ev, err := t.Poll(s.fd, r.events)
		return int(ev), err
	case reqRecvmsg, reqSendmsg:
		// The msghdr, its iovec and name (one object) and b stay pinned
		// until the operation's completion, which Await waits for.
		var pin runtime.Pinner
		pin.Pin(r.m)
		if len(b) > 0 {
			pin.Pin(&b[0])
		}
		defer pin.Unpin()
		var perr error
		res, _, err := t.Await(func(q *sys.SQE) {
			if op == reqRecvmsg {
				perr = sqe.Recvmsg(q, s.fd, &r.m.msg, 0)
			} else {
				perr = sqe.Sendmsg(q, s.fd, &r.m.msg, unix.MSG_NOSIGNAL)
			}
			if perr != nil {
				sqe.Nop(q)
			}
		})
		if perr != nil {
			return 0, perr
		}
		return int(res), err
	}
	return 0, unix.EINVAL
}

// direct tries the socket without blocking (MSG_DONTWAIT), from the
// caller's goroutine; done is false when it would block (EAGAIN), and the
// request then goes to the ring. The caller holds the direction's mutex,
// which Close takes before closing the fd, so the fd cannot be closed or
// reused under the syscall.
func (s *sock) direct(op reqOp, name string, b []byte) (n int, err error, done bool) {
	if op == reqSend {
		n, err = fdio.SendNonblock(s.fd, b)
	} else {
		n, err = fdio.RecvNonblock(s.fd, b)
	}
	if err == nil {
		return n, nil, true
	}
	errno, _ := err.(unix.Errno)
	if errno == unix.EAGAIN || errno == unix.EINTR {
		return 0, nil, false
	}
	if errno == 0 {
		return 0, err, true
	}
	return 0, os.NewSyscallError(name, errno), true
}

// opErr wraps err as net does for operation op on this socket.
func (s *sock) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: s.net, Source: s.laddr, Addr: s.raddr, Err: err}
}

// close interrupts the requests in flight (and what interrupt stops: a
// Conn's splice chain), waits for both directions and the guarded calls,
// and closes the fd; more runs under both mutexes before the fd goes (a
// Conn's pipes). net.ErrClosed when already closed.
func (s *sock) close(interrupt, more func()) error {
	if !s.closed.CompareAndSwap(false, true) {
		return net.ErrClosed
	}
	// A ring waiter stored after these loads finds closed set and is
	// cancelled by its goroutine.
	for _, r := range [2]*connReq{&s.rd, &s.wr} {
		if w := r.w.Load(); w != nil {
			w.cancel()
		}
	}
	if interrupt != nil {
		interrupt()
	}
	s.g.Close()
	if s.np != nil {
		// The file's Close ends the netpoller waits in flight, so that
		// the direction mutexes come free, and closes the fd.
		err := s.closeNetpoll()
		s.rmu.Lock()
		s.wmu.Lock()
		if more != nil {
			more()
		}
		s.wmu.Unlock()
		s.rmu.Unlock()
		return err
	}
	s.rmu.Lock()
	s.wmu.Lock()
	if more != nil {
		more()
	}
	err := sys.Close(s.fd)
	s.wmu.Unlock()
	s.rmu.Unlock()
	return err
}

// setDeadline stores r's deadline; a ring wait in flight under another
// one is cancelled and handed to a new waiter by its caller (or fails, if
// the new deadline has passed).
func (s *sock) setDeadline(r *connReq, t time.Time) {
	var dl int64
	if !t.IsZero() {
		if dl = t.UnixNano(); dl == 0 {
			dl = 1
		}
	}
	if r.dl.Swap(dl) == dl {
		return
	}
	if s.np != nil {
		s.netpollDeadline(r, t)
	}
	r.seq.Add(1)
	if w := r.w.Load(); w != nil {
		w.cancel()
	}
}

// setDeadlines is SetDeadline, SetReadDeadline and SetWriteDeadline: net
// answers a closed socket with net.ErrClosed.
func (s *sock) setDeadlines(t time.Time, read, write bool) error {
	if s.closed.Load() {
		return &net.OpError{Op: "set", Net: s.net, Addr: s.laddr, Err: net.ErrClosed}
	}
	if read {
		s.setDeadline(&s.rd, t)
	}
	if write {
		s.setDeadline(&s.wr, t)
	}
	return nil
}

// control runs fn on the fd, which cannot be closed under it: through
// the netpoller file's RawConn where the sock has one, else under the
// guard. False, without calling fn, once the socket is closed.
func (s *sock) control(fn func(fd int)) bool {
	if s.closed.Load() {
		return false
	}
	if s.np != nil {
		return s.np.rc.Control(func(fd uintptr) { fn(int(fd)) }) == nil
	}
	if !s.g.Acquire() {
		return false
	}
	defer s.g.Release()
	fn(s.fd)
	return true
}

// guarded runs fn on the fd (control); a closed socket is net.ErrClosed,
// any error is wrapped as net wraps option errors (Op "set" unless op
// names another).
func (s *sock) guarded(op string, fn func(fd int) error) error {
	var err error
	if !s.control(func(fd int) { err = fn(fd) }) {
		return s.opErr(op, net.ErrClosed)
	}
	if err != nil {
		return s.opErr(op, err)
	}
	return nil
}

// Conn is a net.Conn on the runtime, for ordinary goroutines (never call
// it from a task: the task would block its executor). It has the method
// set of *net.TCPConn (SetNoDelay, SetKeepAlive..., CloseRead, CloseWrite,
// SyscallConn, ReadFrom and WriteTo through sendfile(2) and splice); on a
// Unix socket the TCP options fail as the kernel answers them
// (EOPNOTSUPP).
//
// Read and Write first try the socket without blocking from the calling
// goroutine; what would block waits for readiness in Go's netpoller, as
// net's does, or with task.WithRingConnWaits goes to the executor as an
// io_uring RECV or SEND.
type Conn struct {
	sock
	rpipe, wpipe zerocopy.Pipe                      // ReadFrom/WriteTo's pipes: under rmu / wmu
	chainCancel  atomic.Pointer[context.CancelFunc] // the splice chain in flight (spliceChains)
}

// newConn makes the Conn of fd on executor ex of env; nonblock: fd is
// non-blocking.
func newConn(env *Env, ex *task.Executor, fd int, network string, laddr, raddr net.Addr, nonblock bool) *Conn {
	c := &Conn{}
	c.sock.init(env, ex, fd, network, laddr, raddr, nonblock)
	return c
}

// Read reads into b; io.EOF when the peer shut down.
func (c *Conn) Read(b []byte) (int, error) {
	if c == nil {
		return 0, nilReceiver("Conn.Read")
	}
	if len(b) == 0 {
		return 0, nil
	}
	if len(b) > maxIO {
		b = b[:maxIO]
	}
	c.rmu.Lock()
	n, err := c.io(&c.rd, "read", reqRecv, b)
	c.rmu.Unlock()
	if err != nil {
		return n, c.opErr("read", err)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of b.
func (c *Conn) Write(b []byte) (int, error) {
	if c == nil {
		return 0, nilReceiver("Conn.Write")
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	total := 0
	for total < len(b) {
		rest := b[total:]
		if len(rest) > maxIO {
			rest = rest[:maxIO]
		}
		n, err := c.io(&c.wr, "write", reqSend, rest)
		total += n
		if err != nil {
			return total, c.opErr("write", err)
		}
	}
	return total, nil
}

// Close interrupts reads and writes in flight and closes the socket.
func (c *Conn) Close() error {
	if c == nil {
		return nilReceiver("Conn.Close")
	}
	err := c.close(c.cancelChain, func() {
		c.rpipe.Close()
		c.wpipe.Close()
	})
	if err != nil {
		return c.opErr("close", err)
	}
	return nil
}

// LocalAddr returns the local address (a *net.TCPAddr or *net.UnixAddr).
func (c *Conn) LocalAddr() net.Addr {
	if c == nil {
		return nil
	}
	return c.laddr
}

// RemoteAddr returns the peer's address (a *net.TCPAddr or *net.UnixAddr).
func (c *Conn) RemoteAddr() net.Addr {
	if c == nil {
		return nil
	}
	return c.raddr
}

// SetDeadline sets both deadlines; a wait in flight sees the new one.
func (c *Conn) SetDeadline(t time.Time) error {
	if c == nil {
		return nilReceiver("Conn.SetDeadline")
	}
	err := c.setDeadlines(t, true, true)
	c.cancelChain() // it goes on under the new deadline
	return err
}

// SetReadDeadline sets the read deadline; a past one unblocks a Read.
func (c *Conn) SetReadDeadline(t time.Time) error {
	if c == nil {
		return nilReceiver("Conn.SetReadDeadline")
	}
	return c.setDeadlines(t, true, false)
}

// SetWriteDeadline sets the write deadline (of Write and ReadFrom).
func (c *Conn) SetWriteDeadline(t time.Time) error {
	if c == nil {
		return nilReceiver("Conn.SetWriteDeadline")
	}
	err := c.setDeadlines(t, false, true)
	c.cancelChain()
	return err
}
