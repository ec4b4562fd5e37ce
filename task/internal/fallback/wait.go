package fallback

import (
	"sync/atomic"

	"github.com/pure-uring/uring/task/internal/iop"
)

// wait is the record of one operation of the fallback, from Start until
// it is done; pooled.
type wait struct {
	w       *iop.Waiter
	op      *iop.Op // the executor's Op while Start runs; &saved once the task parked
	saved   iop.Op  // the arguments, for a Retry or a blocking call
	seq     uint32  // bumped by every park, never reset: stale timers and posts see it
	parked  bool    // its task parks in it
	fd      int32   // the fd its readiness wait is for, or noFd, blockingCall
	ev      uint32
	mode    uint8 // how a Retry goes on (the op's own)
	restore int   // the fd flags a connect restores when done; -1: none
	cancel  error // a cancellation that came while a blocking call ran

	// A blocking call's (see blocking).
	call  atomic.Uint32 // callPending ... callLeft
	own   owned         // the fds of its own it was given
	calli int           // its index in Backend.calls
}

// wait.fd when the wait is not for an fd's readiness.
const (
	noFd         = -1 // a sleep (or no wait)
	blockingCall = -2 // a blocking call on a goroutine
)

// Start begins op for w: a call that does not block, done at once, or a
// wait (Parked) for readiness (woken with Again), a goroutine's blocking
// call or a timer (woken with Done).
func (f *Backend) Start(w *iop.Waiter, op *iop.Op) iop.Status {
	wt := f.get(w, op)
	st := f.run(wt, true)
	if st == iop.Done {
		f.done(wt)
	}
	return st
}

// Retry goes on with w's operation after its fd became ready; stop ends it
// instead.
func (f *Backend) Retry(w *iop.Waiter, stop error) iop.Status {
	wt := w.Ref.(*wait)
	var st iop.Status
	if stop != nil {
		st = w.Finish(0, stop)
	} else {
		st = f.run(wt, false)
	}
	if st == iop.Done {
		f.done(wt)
	}
	return st
}

// Cancel ends w's parked operation with err: a readiness wait or a sleep
// at once, a blocking call when it returns (marked here).
func (f *Backend) Cancel(w *iop.Waiter, err error) {
	if wt, _ := w.Ref.(*wait); wt != nil && wt.parked {
		f.cancelWait(wt, err)
	}
}

func (f *Backend) cancelWait(wt *wait, err error) {
	switch {
	case wt.fd >= 0:
		f.p.disarm(wt, int(wt.fd), wt.ev)
		wt.fd = noFd
		f.finish(wt, 0, err)
	case wt.fd == blockingCall:
		if wt.cancel == nil {
			wt.cancel = err
		}
	default: // a sleep
		f.finish(wt, 0, err)
	}
}

// get takes a wait record for op.
func (f *Backend) get(w *iop.Waiter, op *iop.Op) *wait {
	var wt *wait
	if n := len(f.free); n > 0 {
		wt = f.free[n-1]
		f.free = f.free[:n-1]
	} else {
		wt = &wait{}
	}
	wt.w, wt.op, wt.fd, wt.mode, wt.restore = w, op, noFd, 0, -1
	return wt
}

// done runs what ends every operation (a connect gives the fd its mode
// back) and pools wt.
func (f *Backend) done(wt *wait) {
	if wt.restore >= 0 {
		restoreFlags(int(wt.op.Fd), wt.restore)
		wt.restore = -1
	}
	if wt.op == &wt.saved {
		wt.saved = iop.Op{} // no references kept in the pool
	}
	if wt.w.Ref == wt {
		wt.w.Ref = nil
	}
	wt.w, wt.op, wt.cancel = nil, nil, nil
	f.free = append(f.free, wt)
}

// hold parks wt's task: its arguments are saved (the executor's Op is
// reused meanwhile) and, for a readiness wait with a deadline, a timer
// ends it then.
func (f *Backend) hold(wt *wait, deadline bool) {
	if wt.op != &wt.saved {
		wt.saved = *wt.op
		wt.op = &wt.saved
	}
	wt.seq++
	if deadline && wt.op.Deadline != 0 {
		pushTimer(&f.timers, timerEntry{when: wt.op.Deadline, wt: wt, seq: wt.seq})
	}
	wt.parked = true
	f.busy++
	wt.w.Ref = wt
}

// wake ends wt's park: its task runs again, told st.
func (f *Backend) wake(wt *wait, st iop.Status) {
	wt.parked = false
	f.busy--
	w := wt.w
	if st == iop.Done {
		f.done(wt)
	}
	w.St = st
	w.Task.Wake()
}

// finish ends wt's parked operation with a result.
func (f *Backend) finish(wt *wait, res int, err error) {
	wt.w.Finish(res, err)
	f.wake(wt, iop.Done)
}

// waitFd parks wt until fd is ready for ev (or the wait is cancelled):
// nil when wt parked, errNotPollable when fd is a regular file, else why
// it cannot wait.
func (f *Backend) waitFd(wt *wait, fd int, ev uint32) error {
	if err := f.p.arm(wt, fd, ev); err != nil {
		return err
	}
	wt.fd, wt.ev = int32(fd), ev
	f.hold(wt, true)
	return nil
}

// sleep parks wt for its Dur.
func (f *Backend) sleep(wt *wait) iop.Status {
	f.hold(wt, false)
	pushTimer(&f.timers, timerEntry{when: nowNano() + int64(max(wt.op.Dur, 0)), wt: wt, seq: wt.seq, sleep: true})
	return iop.Parked
}

// blocking runs wt's operation, which may block, on a goroutine while its
// task parks. A cancellation does not end the wait: the call still has
// the buffers it was given, as a cancelled io_uring request has until its
// CQE; the operation then ends with the cancellation's error, and an fd
// the call made meanwhile is closed.
//
// The task's caller takes the end of the task as the end of the call and
// may close the fds it named, whose numbers the next open gets: the call
// must never run on such a number after that. While the executor runs, the
// task waits for the call. When Close gives up on it (Abandon, past the
// close wait) before the task is stopped, a call whose goroutine has not
// claimed it never runs; one that has either runs on fds of its own (own:
// dups made now, while the task holds the fds: calls that may wait for
// another party for ever, on a pipe, a socket, a FIFO's open), or borrows
// the task's (regular files, directories: a call that ends by itself), and
// then Abandon waits until it has returned. Borrowing keeps the file
// calls, the hot ones, free of a dup and a close (a close of a file's dup
// would also drop the process's POSIX locks on it, and flush it on NFS or
// FUSE).
func (f *Backend) blocking(wt *wait, own owned) iop.Status {
	if f.abandoned {
		own.close()
		return wt.w.Finish(0, iop.ErrClosed)
	}
	f.hold(wt, false)
	wt.fd, wt.cancel = blockingCall, nil
	wt.call.Store(callPending)
	wt.own, wt.calli = own, len(f.calls)
	f.calls = append(f.calls, wt)
	go f.call(wt, wt.op, wt.seq, own)
	return iop.Parked
}

// The states of a blocking call (wait.call).
const (
	callPending   = iota // its goroutine has not claimed it yet
	callRunning          // claimed: its system calls run
	callDone             // it returned; its result is posted
	callAbandoned        // Abandon gave up on it before it was claimed: it never runs
	callLeft             // Abandon gave up on it while it ran: its result goes nowhere
)

// owned is what fds a blocking call has of its own: dups of its op's Fd
// and Fd2 (-1: it borrows the op's number, or there is none).
type owned struct{ fd, fd2 int }

// borrowed is a call that runs on the fds its task named.
var borrowed = owned{-1, -1}

// close closes the fds of o.
func (o owned) close() {
	if o.fd >= 0 {
		closeFd(o.fd)
	}
	if o.fd2 >= 0 {
		closeFd(o.fd2)
	}
}

func (f *Backend) call(wt *wait, op *iop.Op, seq uint32, own owned) {
	code, fd := op.Code, op.Fd
	hook(code, fd, CallStart)
	defer hook(code, fd, CallEnd)
	if !wt.call.CompareAndSwap(callPending, callRunning) {
		own.close() // Abandon gave up on it first
		return
	}
	hook(code, fd, CallRun)
	var n int
	var err error
	if own == borrowed {
		n, err = callBlocking(op)
	} else {
		c := *op
		if own.fd >= 0 {
			c.Fd = own.fd
		}
		if own.fd2 >= 0 {
			c.Fd2 = own.fd2
		}
		n, err = callBlocking(&c)
		own.close()
	}
	if wt.call.Swap(callDone) == callLeft {
		// Its task was stopped: nobody takes the result.
		if err == nil && makesFd(code) {
			closeFd(n)
		}
		if own == borrowed {
			f.left.Done()
		}
		return
	}
	f.sched.Post(iop.Event{To: f, Ref: wt, Seq: seq, N: n, Err: err})
}

// Abandon gives up on the blocking calls in flight (Close, past the close
// wait, before it stops their tasks; maybe again at its end): the ones not
// claimed yet never run, and the ones that borrow their task's fds have
// returned when it returns. Their results go nowhere (an fd one made is
// closed); their buffers stay theirs, as the goroutines hold them.
func (f *Backend) Abandon() {
	f.abandoned = true
	for _, wt := range f.calls {
		if wt.call.CompareAndSwap(callPending, callAbandoned) {
			continue
		}
		wait := wt.own == borrowed
		if wait {
			f.left.Add(1)
		}
		if !wt.call.CompareAndSwap(callRunning, callLeft) {
			// Done already (its post is refused now), or abandoned by
			// an earlier Abandon.
			if wait {
				f.left.Done()
			}
			continue
		}
		if wait {
			hook(wt.op.Code, wt.op.Fd, CallWaited)
		}
	}
	f.left.Wait()
}

// unlist takes wt off the list of blocking calls in flight.
func (f *Backend) unlist(wt *wait) {
	last := len(f.calls) - 1
	moved := f.calls[last]
	f.calls[wt.calli], moved.calli = moved, wt.calli
	f.calls[last] = nil
	f.calls = f.calls[:last]
}

// Posted delivers the result of a blocking call to its task.
func (f *Backend) Posted(e *iop.Event) {
	wt := e.Ref.(*wait)
	if wt.seq != e.Seq || !wt.parked || wt.fd != blockingCall {
		return // never expected: a blocking wait ends only here
	}
	if f.abandoned {
		// The task is stopped: nobody takes the result.
		if e.Err == nil && makesFd(wt.op.Code) {
			closeFd(e.N)
		}
		return
	}
	f.unlist(wt)
	wt.fd = noFd
	switch c := wt.cancel; {
	case c != nil:
		if e.Err == nil && makesFd(wt.op.Code) {
			closeFd(e.N)
		}
		f.finish(wt, 0, c)
	default:
		if fd, ev, ok := f.callWouldWait(wt, e.Err); ok {
			f.rewait(wt, fd, ev)
			return
		}
		f.finish(wt, e.N, e.Err)
	}
}

// rewait: wt's call would have waited for fd (a splice, for its pipe):
// its task waits for fd's readiness instead, as a read does, and the call
// runs again then (Retry).
func (f *Backend) rewait(wt *wait, fd int, ev uint32) {
	if err := f.p.arm(wt, fd, ev); err != nil {
		f.finish(wt, 0, err)
		return
	}
	wt.parked = false // the blocking wait ends, the readiness wait begins
	f.busy--
	wt.fd, wt.ev = int32(fd), ev
	f.hold(wt, true)
}

// makesFd reports whether an operation of code c returns a new fd.
func makesFd(c iop.Code) bool { return c == iop.Openat }
