//go:build linux

package task

import (
	"context"
	"errors"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// Every op's user_data is the token of a slot of the executor's Core
// (slot index and generation: a stale CQE is recognised and dropped
// there); the executor's own SQEs carry udIgnore, whose CQEs the Core
// drops.
const (
	udIgnore      = poll.IgnoreUserData
	slotFdResult  = 1 << 0 // the result is a new fd: close it if the op was cancelled
	slotZC        = 1 << 1 // zero-copy send: done on the notification CQE
	slotMultishot = 1 << 2 // CQEs go to a handler until F_MORE drops
	slotPeer      = 1 << 3 // accept/recvmsg: decode the peer address for the waiter
	slotMsgOut    = 1 << 4 // recvmsg: decode the msghdr's outputs for the waiter
)

// opSlot keeps everything an operation lends the kernel reachable (and
// pinned) until its last CQE.
type opSlot struct {
	ex    *Executor
	tok   poll.Token // its Core slot's token while in use
	inUse bool
	kind  uint8

	t         *T      // waiter; nil once nobody waits
	out       *Result // where the final result goes
	cancelled bool    // ASYNC_CANCEL sent for it
	linkedTO  bool    // a LINK_TIMEOUT follows it
	zcRes     int32
	zcHave    bool
	multi     multishotSink

	pin    runtime.Pinner
	pinned bool
	heavy  bool // holds references beyond buf, t and out: freeSlot clears them

	// References the kernel may use until the CQE.
	buf   []byte
	bufs  [][]byte
	iov   []unix.Iovec
	path  []byte
	path2 []byte
	ptr   any
	ts    sys.Timespec
	lts   sys.Timespec // of the LINK_TIMEOUT
	msg   unix.Msghdr
	name  [128]byte // a msghdr's sockaddr
	sa    unix.RawSockaddrAny
	salen uint32
	sa4   unix.RawSockaddrInet4
	sa6   unix.RawSockaddrInet6
}

type multishotSink interface {
	cqe(res int32, flags uint32)
}

func (sl *opSlot) ud() uint64 { return uint64(sl.tok) }

// allocSlot takes a Core slot and the op record kept on it (made and
// kept there the first time the slot is used): the Core's free list is the
// only one.
func (ex *Executor) allocSlot() *opSlot {
	tok, h := ex.core.AcquireKept()
	sl, _ := h.(*opSlot)
	if sl == nil {
		sl = &opSlot{ex: ex}
		ex.core.Keep(tok, sl)
		ex.slots = append(ex.slots, sl)
	}
	sl.tok = tok
	sl.inUse = true
	ex.busy++
	return sl
}

// freeSlot returns the slot of an op whose SQE never reached the kernel
// (it was refused, or turned into an ignored NOP).
func (ex *Executor) freeSlot(sl *opSlot) {
	ex.core.Release(sl.tok)
	ex.recycleSlot(sl)
}

// recycleSlot clears an op record whose last CQE came (the Core released
// its slot before handing it the CQE).
func (ex *Executor) recycleSlot(sl *opSlot) {
	if sl.pinned {
		sl.pin.Unpin()
		sl.pinned = false
	}
	sl.buf, sl.t, sl.out = nil, nil, nil
	if sl.heavy {
		sl.bufs, sl.ptr, sl.multi = nil, nil, nil
		for i := range sl.iov {
			sl.iov[i] = unix.Iovec{}
		}
		sl.msg = unix.Msghdr{}
		sl.heavy = false
	}
	sl.kind, sl.cancelled, sl.linkedTO, sl.zcHave = 0, false, false, false
	sl.inUse = false
	ex.busy--
}

// pinBytes pins the memory behind b until the slot is freed.
func (sl *opSlot) pinBytes(b []byte) {
	if len(b) > 0 {
		sl.pin.Pin(&b[0])
		sl.pinned = true
	}
}

// keepBytes keeps b referenced and pinned until the slot is freed.
func (sl *opSlot) keepBytes(b []byte) {
	sl.buf = b
	sl.pinBytes(b)
}

func (sl *opSlot) pinPtr(p any) {
	sl.pin.Pin(p)
	sl.pinned = true
}

// Handle takes one CQE of the op (poll.Handler; the Core has checked its
// generation).
func (sl *opSlot) Handle(c *sys.CQE) {
	ex := sl.ex
	more := c.Flags&sys.CQEFMore != 0
	switch {
	case sl.kind&slotMultishot != 0:
		if sl.multi != nil {
			sl.multi.cqe(c.Res, uint32(c.Flags))
		}
		if more {
			return
		}
	case sl.kind&slotZC != 0:
		if c.Flags&sys.CQEFNotif == 0 {
			sl.zcRes, sl.zcHave = c.Res, true
			if more {
				return // the buffer is lent until the notification
			}
		}
		if more {
			return
		}
		ex.finishOp(sl, sl.zcRes, uint32(c.Flags))
		return
	}
	ex.finishOp(sl, c.Res, uint32(c.Flags))
}

func (ex *Executor) finishOp(sl *opSlot, res int32, flags uint32) {
	if sl.kind&slotFdResult != 0 && sl.cancelled && res >= 0 {
		// The task was told "cancelled": nobody will close this fd.
		ex.closeFdAsync(int(res))
		res = -int32(unix.ECANCELED)
	}
	t, out := sl.t, sl.out
	if t != nil && sl.kind&slotPeer != 0 {
		// Decode what the kernel wrote into the slot before it is reused.
		x := t.ext()
		if sl.kind&slotMsgOut != 0 {
			x.peer = sockaddr.Get(sl.name[:], sl.msg.Namelen)
			x.oobn, x.rflags = int(sl.msg.Controllen), int(sl.msg.Flags)
		} else {
			var b [128]byte
			x.peer = sockaddr.Get(rawSockaddrBytes(&sl.sa, &b), sl.salen)
		}
	}
	ex.recycleSlot(sl)
	if out != nil {
		*out = Result{Res: res, Flags: flags}
	}
	if t != nil {
		t.pending--
		if t.pending <= 0 {
			ex.wake(t)
		}
	}
}

// closeFdAsync closes fd with an internal CLOSE SQE.
func (ex *Executor) closeFdAsync(fd int) {
	if s, err := ex.internalSQE(); err == nil {
		if sqe.Close(s, fd) != nil {
			sqe.Nop(s)
		}
		s.UserData = udIgnore
		return
	}
	_ = sys.Close(fd)
}

// internalSQE gets an SQE for the executor's own use, submitting to make room.
func (ex *Executor) internalSQE() (*sys.SQE, error) {
	for i := 0; ; i++ {
		s, err := ex.ring.GetSQE()
		if err != uring.ErrSQFull || i == 100 {
			return s, err
		}
		_, _ = ex.ring.Submit()
		ex.reap()
	}
}

// cancelOp asks the kernel to cancel the op in sl (IORING_OP_ASYNC_CANCEL
// by user_data); its CQE still comes and frees the slot.
func (ex *Executor) cancelOp(sl *opSlot) {
	if sl.cancelled || !sl.inUse {
		return
	}
	sl.cancelled = true
	if s, err := ex.internalSQE(); err == nil {
		fillCancel(s, sl.ud())
	}
}

// cancelRingOps asks the kernel to cancel the ops t waits for.
func (ex *Executor) cancelRingOps(t *T) {
	for _, sl := range t.ops() {
		ex.cancelOp(sl)
	}
}

// ops lists the slots t waits for (one, or a chain's).
func (t *T) ops() []*opSlot {
	if t.x != nil && t.x.chain != nil {
		return t.x.chain
	}
	if t.op != nil {
		x := t.ext()
		x.one[0] = t.op
		return x.one[:]
	}
	return nil
}

// ringSQE gets an SQE once the SQ has room for n (2 with a linked
// timeout), submitting and reaping to make room.
func (t *T) ringSQE(n uint32) (*sys.SQE, error) { return t.ex.sqeRoom(n) }

// sqeRoom gets an SQE once the SQ has room for n, submitting and reaping
// to make room.
func (ex *Executor) sqeRoom(n uint32) (*sys.SQE, error) {
	for i := 0; ex.ring.SQSpace() < n; i++ {
		if i == 0 {
			ex.sqFull++
		}
		if i == 100 {
			return nil, uring.ErrSQFull
		}
		_, _ = ex.ring.Submit()
		ex.reap()
	}
	s, err := ex.ring.GetSQE()
	if err == uring.ErrClosed {
		err = ErrClosed
	}
	return s, err
}

// sqeNeed is how many SQEs an op of t takes (2 with its LINK_TIMEOUT).
func (t *T) sqeNeed() uint32 {
	if t.hasDeadline {
		return 2
	}
	return 1
}

// slot checks that t may await and allocates the op's slot.
func (t *T) slot(name string, fd int) (*opSlot, error) {
	if err := t.check(); err != nil {
		return nil, opError(name, fd, err)
	}
	return t.ex.allocSlot(), nil
}

// sqeFor gets the SQE of the op in sl; on failure sl is freed.
func (t *T) sqeFor(sl *opSlot, name string, fd int) (*sys.SQE, error) {
	s, err := t.ringSQE(t.sqeNeed())
	if err != nil {
		t.ex.freeSlot(sl)
		return nil, opError(name, fd, err)
	}
	return s, nil
}

// start checks that t may await and hands out a slot and an SQE (for a
// builder of package sqe to fill; wait sets its user_data).
func (t *T) start(name string, fd int) (*sys.SQE, *opSlot, error) {
	// The common case in one step: nothing to check (no cancellable
	// context, no deadline, executor open), a pooled slot, room in the SQ.
	ex := t.ex
	if !t.cancellable && !t.hasDeadline && !ex.closing {
		if s, err := ex.ring.GetSQE(); err == nil {
			return s, ex.allocSlot(), nil
		}
	}
	return t.startSlow(name, fd)
}

// startSlow is start with every check, and room made in the SQ.
func (t *T) startSlow(name string, fd int) (*sys.SQE, *opSlot, error) {
	sl, err := t.slot(name, fd)
	if err != nil {
		return nil, nil, err
	}
	s, err := t.sqeFor(sl, name, fd)
	if err != nil {
		return nil, nil, err
	}
	return s, sl, nil
}

// startAlways is start without the cancellation check: for Close and the
// executor's own waits, which run even when the context is done.
func (t *T) startAlways(name string, fd int) (*sys.SQE, *opSlot, error) {
	if t.ex.closing && name != "close" {
		return nil, nil, opError(name, fd, ErrClosed)
	}
	sl := t.ex.allocSlot()
	s, err := t.ringSQE(1)
	if err != nil {
		t.ex.freeSlot(sl)
		return nil, nil, opError(name, fd, err)
	}
	return s, sl, nil
}

// abandon turns the SQE of an op whose builder rejected an argument (or
// that the kernel cannot run) into a NOP nobody waits for, frees the slot,
// and returns err, an argument error renamed after fn.
func (t *T) abandon(s *sys.SQE, sl *opSlot, fn string, err error) error {
	sqe.Nop(s)
	s.UserData = udIgnore
	t.ex.freeSlot(sl)
	return argErr(fn, err)
}

// argErr renames a builder's *sqe.ArgError after the task method fn.
func argErr(fn string, err error) error {
	var e *sqe.ArgError
	if errors.As(err, &e) {
		return argError(fn, e.Arg, e.Reason)
	}
	return err
}

// wait parks t until the op in sl completes and returns its result (0
// and an *OpError for a negative one).
func (t *T) wait(s *sys.SQE, sl *opSlot, name string, fd int) (int32, uint32, error) {
	ex := t.ex
	s.UserData = sl.ud()
	linked := false
	if t.hasDeadline {
		linked = ex.linkTimeout(s, sl, time.Unix(0, t.deadline))
	}
	sl.t, sl.out = t, &t.res
	s0 := s.Opcode // s is the kernel's once submitted
	t.pending = 1
	t.op = sl
	t.parkKind = parkOp
	t.park()
	t.parkKind = parkNone
	t.op = nil
	ex.countOp(opClassOf[s0], true)
	r := t.res
	if r.Res < 0 {
		return 0, r.Flags, t.opErr(name, fd, r.Res, linked)
	}
	return r.Res, r.Flags, nil
}

// linkTimeout links a LINK_TIMEOUT for the deadline behind s. Not on an
// IOPOLL ring: the kernel refuses timeouts there (EINVAL at prep), which
// would cancel s; the context's Done still cancels the op at the deadline.
func (ex *Executor) linkTimeout(s *sys.SQE, sl *opSlot, deadline time.Time) bool {
	if ex.core.IOPoll() {
		return false
	}
	lt, err := ex.ring.GetSQE()
	if err != nil {
		return false // room for it was reserved; a closed ring fails the op anyway
	}
	if err := sqe.LinkTimeout(lt, &sl.lts, max(time.Until(deadline), 0), 0); err != nil {
		sqe.Nop(lt)
		lt.UserData = udIgnore
		return false
	}
	lt.UserData = udIgnore
	sqe.Link(s)
	sl.linkedTO = true
	return true
}

// The kernel-internal errnos of include/linux/errno.h (ERESTARTSYS,
// ERESTARTNOINTR, ERESTARTNOHAND, ENOIOCTLCMD, ERESTART_RESTARTBLOCK).
const (
	errRestartSys   unix.Errno = 512
	errRestartBlock unix.Errno = 516
)

// opErr turns a negative result into an error; a cancellation becomes the
// context's error (or ErrClosed).
func (t *T) opErr(name string, fd int, res int32, linked bool) error {
	errno := unix.Errno(-res)
	if errno >= errRestartSys && errno <= errRestartBlock {
		// Kernel-internal restart codes leak out of an io-wq worker that was
		// interrupted (a cancelled open of a FIFO completes with -512): to
		// user space they mean "interrupted".
		errno = unix.EINTR
	}
	if errno == unix.ECANCELED || errno == unix.EINTR {
		switch {
		case t.ex.closing:
			return opError(name, fd, ErrClosed)
		case t.ctx.Err() != nil:
			return opError(name, fd, t.ctx.Err())
		case linked && time.Now().UnixNano() >= t.deadline:
			return opError(name, fd, context.DeadlineExceeded)
		}
	}
	return opError(name, fd, errno)
}

// Await submits the SQE prep fills (user_data is set afterwards) and waits
// for its CQE. Memory the SQE points at is the caller's to keep alive and
// pinned until Await returns; prefer the typed awaits, which do that. An
// opcode the kernel lacks is refused before anything is submitted (an
// *OpError wrapping uring.ErrUnsupported that names it).
func (t *T) Await(prep func(s *sys.SQE)) (res int32, flags uint32, err error) {
	if t.ex.fb != nil {
		return 0, 0, unsupportedOp("await", "a raw SQE")
	}
	s, sl, err := t.start("await", -1)
	if err != nil {
		return 0, 0, err
	}
	prep(s)
	if op := s.Opcode; !feature.OpKnown(op) {
		if err := feature.OpMiss(op); err != nil {
			// abandon rewrites the whole SQE: prep's flags (a link) go too.
			return 0, 0, t.abandon(s, sl, "await", opError("await", int(s.Fd), err))
		}
	}
	return t.wait(s, sl, "await", int(s.Fd))
}
