//go:build linux

package task

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// sock is what a Conn and a PacketConn share: the fd, the executor its
// operations run on, one preallocated request per direction, and the
// close protocol. Each request goes through the executor's inbox and is
// submitted directly, no task per call; the executor signals its
// completion on a reusable channel. A deadline is a LINK_TIMEOUT on the
// SQE; changing it, and Close, cancel a request in flight (ASYNC_CANCEL).
// The fd is closed only after both directions returned, so its number
// cannot be reused under an operation.
type sock struct {
	ex           *Executor
	fd           int
	net          string // the network, as net.OpError names it
	laddr, raddr net.Addr
	closed       atomic.Bool

	rmu, wmu sync.Mutex // one reader, one writer at a time (each owns its request)
	rd, wr   connReq
	g        fdGuard // calls outside the two directions (options, shutdown, Control)
	fbErr    error   // why the fallback could not register the fd
	fb       *fbSock // the fallback backend's netpoller registration; nil on io_uring
}

// reqOp is what a connReq asks the executor to submit.
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

// connReq is one direction's request. The caller sets the arguments and
// posts it; the executor fills the slot, and on the CQE sets res and
// signals done.
type connReq struct {
	s        *sock
	op       reqOp
	buf      []byte
	done     chan struct{} // 1-buffered
	res      int32
	dl       atomic.Int64  // deadline in UnixNano; 0: none
	seq      atomic.Uint32 // bumped when the deadline changes
	inflight atomic.Bool   // posted, done not yet received

	// Arguments besides buf, set by the caller before it posts.
	spIn, spOut       int
	spOffIn, spOffOut int64
	spLen             uint32
	events            uint32
	m                 *msgBufs // reqRecvmsg, reqSendmsg: a PacketConn's

	// Executor thread; read by the caller after done.
	sl    *opSlot
	slTok poll.Token
	opSeq uint32 // seq the request was submitted under
	opDl  int64  // deadline it was submitted with
}

// msgBufs is the msghdr of a datagram request and what it points at; the
// kernel holds them until the CQE (pinned with the request's slot).
type msgBufs struct {
	msg  unix.Msghdr
	iov  unix.Iovec
	name [128]byte // struct sockaddr_storage
}

// init sets s up on executor ex; nonblock: fd is non-blocking already.
func (s *sock) init(ex *Executor, fd int, network string, laddr, raddr net.Addr, nonblock bool) {
	s.ex, s.fd, s.net, s.laddr, s.raddr = ex, fd, network, laddr, raddr
	s.rd = connReq{s: s, op: reqRecv, done: make(chan struct{}, 1)}
	s.wr = connReq{s: s, op: reqSend, done: make(chan struct{}, 1)}
	if !ex.ringConns {
		if err := s.initFallback(nonblock); err != nil {
			s.fbErr = err
		}
	}
}

// maxIO bounds one RECV/SEND (the SQE's length is 32 bits).
const maxIO = 1 << 30

// io runs one request of kind op (b: its buffer) under r's deadline,
// submitting it again when the deadline changed while it waited. The
// caller holds r's mutex. Errors are the cause alone (net.ErrClosed,
// os.ErrDeadlineExceeded, an *os.SyscallError named name); the caller
// wraps them in a *net.OpError.
func (s *sock) io(r *connReq, name string, op reqOp, b []byte) (int, error) {
	if !s.ex.ringConns {
		if s.fb == nil {
			return 0, s.fbErr
		}
		return s.fbIO(r, name, op, b)
	}
	for {
		if s.closed.Load() {
			return 0, net.ErrClosed
		}
		if dl := r.dl.Load(); dl != 0 && time.Now().UnixNano() >= dl {
			return 0, os.ErrDeadlineExceeded
		}
		if s.ex.closeReq.Load() {
			return 0, net.ErrClosed
		}
		if op <= reqSend {
			if n, err, done := s.direct(op, name, b); done {
				return n, err
			}
		}
		r.op, r.buf = op, b
		r.inflight.Store(true)
		s.ex.post(remoteMsg{kind: msgConnIO, req: r})
		if op == reqSplice {
			s.awaitSplice(r)
		} else {
			<-r.done
		}
		r.inflight.Store(false)
		r.buf = nil
		res := r.res
		if res >= 0 {
			return int(res), nil
		}
		errno := unix.Errno(-res)
		if errno >= errRestartSys && errno <= errRestartBlock {
			// An io-wq worker interrupted by a cancel (a SPLICE) may leak
			// the kernel's restart codes: "interrupted".
			errno = unix.EINTR
		}
		if errno == unix.ECANCELED || errno == unix.EINTR {
			switch {
			case s.closed.Load() || s.ex.closeReq.Load():
				return 0, net.ErrClosed
			case r.seq.Load() != r.opSeq || errno == unix.EINTR:
				continue // the deadline changed, or interrupted: again
			case r.opDl != 0:
				return 0, os.ErrDeadlineExceeded // the LINK_TIMEOUT fired
			}
		}
		return 0, os.NewSyscallError(name, errno)
	}
}

// awaitSplice waits for r's SPLICE and cancels it (ASYNC_CANCEL) at r's
// deadline. A SPLICE runs in an io-wq worker, where a LINK_TIMEOUT does
// not interrupt it (seen on 6.18: a splice into a full socket outlived its
// linked timeout), so connStart links none for it. A cancel that lands
// after the splice completed finds no slot, or, past the deadline anyway,
// ends the next one, which then reports the deadline as it should.
func (s *sock) awaitSplice(r *connReq) {
	dl := r.dl.Load()
	if dl == 0 {
		<-r.done
		return
	}
	t := time.AfterFunc(time.Until(time.Unix(0, dl)), func() { s.ex.post(remoteMsg{kind: msgConnCancel, req: r}) })
	<-r.done
	t.Stop()
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
	// A request posted after these loads finds closed set when the
	// executor takes it, and completes without being submitted.
	for _, r := range [2]*connReq{&s.rd, &s.wr} {
		if r.inflight.Load() {
			s.ex.post(remoteMsg{kind: msgConnCancel, req: r})
		}
	}
	if interrupt != nil {
		interrupt()
	}
	s.g.close()
	if s.fb != nil {
		// The file's Close ends the netpoller waits in flight, so that
		// the direction mutexes come free, and closes the fd.
		err := s.closeFallback()
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

// setDeadline stores r's deadline; a request in flight under another one
// is cancelled and submitted again by its caller (or fails, if the new
// deadline has passed).
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
	if s.fb != nil {
		s.fbDeadline(r, t)
	}
	r.seq.Add(1)
	if r.inflight.Load() {
		s.ex.post(remoteMsg{kind: msgConnCancel, req: r})
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
	if s.fb != nil {
		return s.fb.rc.Control(func(fd uintptr) { fn(int(fd)) }) == nil
	}
	if !s.g.begin() {
		return false
	}
	defer s.g.end()
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

// Conn is a net.Conn whose reads and writes are io_uring RECV/SEND on one
// executor, for ordinary goroutines (never call it from a task: the task
// would block its executor). It has the method set of *net.TCPConn
// (SetNoDelay, SetKeepAlive..., CloseRead, CloseWrite, SyscallConn,
// ReadFrom and WriteTo through IORING_OP_SPLICE); on a Unix socket the
// TCP options fail as the kernel answers them (EOPNOTSUPP).
//
// Read and Write first try the socket without blocking from the calling
// goroutine; what would block goes to the executor as one request per
// direction (see sock).
type Conn struct {
	sock
	rpipe, wpipe splicePipe                         // ReadFrom/WriteTo's pipes: under rmu / wmu
	chainCancel  atomic.Pointer[context.CancelFunc] // the splice chain in flight (spliceChains)
}

// newConn makes the Conn of fd on ex; nonblock: fd is non-blocking.
func newConn(ex *Executor, fd int, network string, laddr, raddr net.Addr, nonblock bool) *Conn {
	c := &Conn{}
	c.sock.init(ex, fd, network, laddr, raddr, nonblock)
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
		c.rpipe.close()
		c.wpipe.close()
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

// connStart submits r's operation (executor thread).
func (ex *Executor) connStart(r *connReq) {
	s := r.s
	if ex.closing || s.closed.Load() {
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
	linked := r.opDl != 0 && r.op != reqSplice // see awaitSplice
	need := uint32(1)
	if linked {
		need = 2
	}
	q, err := ex.sqeRoom(need)
	if err != nil {
		ex.freeSlot(sl)
		r.complete(-int32(unix.EBUSY))
		return
	}
	switch r.op {
	case reqRecv:
		err = sqe.Recv(q, s.fd, r.buf, 0)
	case reqSend:
		err = sqe.Send(q, s.fd, r.buf, unix.MSG_NOSIGNAL)
	case reqSplice:
		err = sqe.Splice(q, r.spIn, r.spOffIn, r.spOut, r.spOffOut, r.spLen, 0)
	case reqPoll:
		err = sqe.PollAdd(q, s.fd, r.events)
	case reqRecvmsg:
		err = sqe.Recvmsg(q, s.fd, &r.m.msg, 0)
	case reqSendmsg:
		err = sqe.Sendmsg(q, s.fd, &r.m.msg, unix.MSG_NOSIGNAL)
	}
	if err != nil {
		sqe.Nop(q)
		q.UserData = udIgnore
		ex.freeSlot(sl)
		r.complete(-int32(unix.EINVAL))
		return
	}
	sl.keepBytes(r.buf)
	if r.m != nil && r.op >= reqRecvmsg {
		sl.pinPtr(r.m) // the msghdr, its iovec and name: one object
	}
	q.UserData = sl.ud()
	if linked {
		ex.linkTimeout(q, sl, time.Unix(0, r.opDl))
	}
	sl.req, sl.heavy = r, true
	ex.countOp(classNet, false)
	r.sl, r.slTok = sl, sl.tok
}

// connCancel cancels r's request if it is in flight (executor thread).
func (ex *Executor) connCancel(r *connReq) {
	if sl := r.sl; sl != nil && sl.inUse && sl.tok == r.slTok && sl.req == r {
		ex.cancelOp(sl)
	}
}

// complete hands res to the caller waiting on r.
// refuse completes r with ECANCELED: its executor has stopped.
func (r *connReq) refuse() { r.complete(-int32(unix.ECANCELED)) }

func (r *connReq) complete(res int32) {
	r.sl = nil
	r.res = res
	r.done <- struct{}{}
}
