//go:build linux

package poll

import (
	"context"
	"errors"
	"sync"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/udata"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// Result is what a CQE says about an operation.
type Result struct {
	Res   int32        // byte count, fd, ... or -errno
	Flags sys.CQEFlags // IORING_CQE_F_*
}

// More reports IORING_CQE_F_MORE: a multishot operation posts more CQEs.
func (r Result) More() bool { return r.Flags&sys.CQEFMore != 0 }

type msgKind uint8

const (
	msgDo     msgKind = iota // submit req, signal req.done at the last CQE
	msgGo                    // submit req, call req.cb for every CQE
	msgRun                   // run req.fn on the loop thread
	msgCancel                // cancel req's operation (its Do context ended)
	msgStats                 // copy the counters into req.stats
)

type msg struct {
	kind msgKind
	req  *request
}

// request carries cross-goroutine work; pooled, so Do allocates nothing.
type request struct {
	l     *Loop
	kind  msgKind
	prep  func(*sys.SQE) error
	cb    func(Result, error)
	fn    func()
	stats *Stats
	done  chan struct{} // capacity 1

	// Written by the loop, read by the waiter after done.
	res Result
	err error
	got bool // res and err hold the operation's first CQE (loop thread)

	// Loop thread only.
	op  sys.Op
	tok Token
}

// callerSpins is how many times Do polls for its answer on a Spin or
// Hybrid loop before it blocks (a few µs).
const callerSpins = 200

var reqPool = sync.Pool{New: func() any { return &request{done: make(chan struct{}, 1)} }}

func getReq(l *Loop, kind msgKind) *request {
	r := reqPool.Get().(*request)
	r.l, r.kind = l, kind
	return r
}

func putReq(r *request) {
	r.l, r.prep, r.cb, r.fn, r.stats, r.err = nil, nil, nil, nil, nil, nil
	r.res, r.got = Result{}, false
	reqPool.Put(r)
}

// Handle delivers a CQE of a Do or Go request (loop thread).
func (r *request) Handle(c *sys.CQE) {
	l := r.l
	res := Result{Res: c.Res, Flags: c.Flags}
	err := resultErr(r.op, c.Res, l.iopoll)
	if err != nil && l.closing {
		err = uring.ErrClosed
	}
	if r.kind == msgGo {
		r.cb(res, err)
		if !res.More() {
			putReq(r)
		}
		return
	}
	if !r.got {
		// The first CQE carries the operation's result (a zero-copy send's
		// byte count; its notification, the last CQE, carries 0).
		r.res, r.err, r.got = res, err, true
	}
	if !res.More() {
		r.done <- struct{}{} // the operation ended: the kernel is done with its memory
	}
}

// Do hands the loop an operation and waits for its result. prep fills the
// SQE (it runs on the loop thread; it must not keep the pointer). A
// negative result comes back as an *OpError. If ctx ends first, Do
// cancels the operation (ASYNC_CANCEL), still waits for its CQE, so the
// kernel is done with every buffer prep named, and returns ctx.Err() with
// that CQE's result (an operation that completed anyway is not lost). A
// closed loop answers uring.ErrClosed. A static (non-capturing) prep
// makes Do allocation-free.
//
// An operation that posts more than one CQE (the first with
// IORING_CQE_F_MORE: SEND_ZC and SENDMSG_ZC, whose last CQE is the
// IORING_CQE_F_NOTIF notification, or any multishot operation) is waited
// for until its last CQE (without F_MORE), so that the kernel is done with
// its memory, and Do returns its FIRST CQE's result and flags (More() is
// then true) and that CQE's error: the send's byte count or error, not the
// notification's 0. The later CQEs are dropped; use Go to see every CQE
// of a multishot operation.
//
// A prep that panics leaves no SQE behind (it becomes an ignored NOP);
// the panic then stops the loop as a handler's does (Close returns a
// *HandlerError) and Do returns uring.ErrClosed.
func (l *Loop) Do(ctx context.Context, prep func(*sys.SQE) error) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	r := getReq(l, msgDo)
	r.prep = prep
	if err := l.enqueue(msg{msgDo, r}); err != nil {
		putReq(r)
		return Result{}, err
	}
	if l.strategy == Spin || l.strategy == Hybrid {
		// A spinning loop answers within microseconds: poll for the answer
		// first, so that neither side needs a thread wakeup.
		for i := 0; i < callerSpins; i++ {
			select {
			case <-r.done:
				res, err := r.res, r.err
				putReq(r)
				return res, err
			default:
			}
		}
	}
	var ctxErr error
	select {
	case <-r.done:
	case <-ctx.Done():
		ctxErr = ctx.Err()
		_ = l.enqueue(msg{msgCancel, r}) // closed: the loop completes r anyway
		<-r.done
	}
	res, err := r.res, r.err
	if ctxErr == nil {
		putReq(r)
	} else if !errors.Is(err, uring.ErrClosed) {
		// Not recycled: the cancel message may still name r.
		err = ctxErr
	}
	return res, err
}

// Go hands the loop an operation without waiting: cb runs on the loop
// thread for every CQE (multishot operations post several; the last has
// More() false) and must not block. An error preparing the SQE, or the
// loop closing first, reaches cb as its only call (with ErrClosed when
// closing). Go itself fails only when the loop is already closed.
func (l *Loop) Go(prep func(*sys.SQE) error, cb func(Result, error)) error {
	r := getReq(l, msgGo)
	r.prep, r.cb = prep, cb
	if err := l.enqueue(msg{msgGo, r}); err != nil {
		putReq(r)
		return err
	}
	return nil
}

// Run runs fn on the loop thread and waits for it; fn may call Prep,
// Start, Cancel and Ring, and must not block. ErrClosed when the loop
// closed before fn ran. Called on the loop thread itself, it runs fn at
// once.
func (l *Loop) Run(fn func()) error {
	if l.onLoop() {
		fn()
		return nil
	}
	r := getReq(l, msgRun)
	r.fn = fn
	if err := l.enqueue(msg{msgRun, r}); err != nil {
		putReq(r)
		return err
	}
	<-r.done
	err := r.err
	putReq(r)
	return err
}

// onLoop reports whether the caller runs on the loop thread (while the
// loop runs, its goroutine is the only one its locked thread runs).
func (l *Loop) onLoop() bool { return int64(sys.Gettid()) == l.owner.Load() }

// enqueue hands m to the loop and wakes it if it sleeps.
func (l *Loop) enqueue(m msg) error { return l.in.Post(m) }

// takeWork moves posted messages onto the ring (loop thread). Messages
// that find the SQ full wait in the backlog for the next round.
func (l *Loop) takeWork() {
	if msgs := l.in.Take(); len(msgs) > 0 {
		l.backlog = append(l.backlog, msgs...)
		clear(msgs)
	}
	i := 0
	// Deferred: when a message's prep or Run function panics, the messages
	// handled before it leave the backlog all the same (handled twice, a
	// Do submitted would be failed with ErrClosed while it runs), and the
	// one that panicked stays, to be failed by the closing loop.
	defer l.dropHandled(&i)
	for ; i < len(l.backlog); i++ {
		if !l.handle(l.backlog[i]) {
			break
		}
	}
}

// dropHandled removes the first *i messages from the backlog.
func (l *Loop) dropHandled(i *int) {
	n := copy(l.backlog, l.backlog[*i:])
	clear(l.backlog[n:])
	l.backlog = l.backlog[:n]
}

// handle acts on one message; false when the SQ is full (retry later).
func (l *Loop) handle(m msg) bool {
	r := m.req
	switch m.kind {
	case msgRun:
		if l.closing {
			r.err = uring.ErrClosed
		} else {
			r.fn()
		}
		r.done <- struct{}{}
	case msgStats:
		*r.stats = l.snapshot()
		r.done <- struct{}{}
	case msgCancel:
		if s := l.c.lookup(r.tok); s != nil && s.h == Handler(r) {
			if l.cancelSQE(uint64(r.tok)) != nil {
				return false
			}
		}
	case msgDo, msgGo:
		if l.closing {
			l.fail(r, uring.ErrClosed)
			return true
		}
		s, err := l.getSQE()
		if errors.Is(err, uring.ErrSQFull) {
			return false
		}
		if err != nil {
			l.fail(r, err)
			return true
		}
		if err := prepared(s, l.callPrep(r, s)); err != nil {
			l.fail(r, err)
			return true
		}
		r.op = s.Opcode
		r.tok = l.c.Acquire(r)
		s.UserData = uint64(r.tok)
		l.st.Requests++
	}
	return true
}

// callPrep runs r's prep on s. A prep that panics (or calls
// runtime.Goexit) must not leave a half-filled SQE in the SQ, which the
// next submit (the shutdown's cancel, say) would send to the kernel: the
// SQE becomes an ignored NOP and the panic goes on (unrecovered, with its
// own stack) to the loop's guard, which stops the loop. r stays in the
// backlog and is failed with uring.ErrClosed (see takeWork).
func (l *Loop) callPrep(r *request, s *sys.SQE) error {
	ok := false
	defer func() {
		if !ok {
			sqe.Nop(s)
			s.UserData = udata.Ignore
		}
	}()
	err := r.prep(s)
	ok = true
	return err
}

// fail completes a Do or Go request that never reached the kernel.
func (l *Loop) fail(r *request, err error) {
	if r.kind == msgGo {
		r.cb(Result{Res: -int32(unix.ECANCELED)}, err)
		putReq(r)
		return
	}
	r.err = err
	r.done <- struct{}{}
}
