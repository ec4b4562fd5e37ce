package fallback

import "github.com/pure-uring/uring/task/internal/iop"

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
func (f *Backend) blocking(wt *wait) iop.Status {
	f.hold(wt, false)
	wt.fd, wt.cancel = blockingCall, nil
	go f.call(wt, wt.op, wt.seq)
	return iop.Parked
}

func (f *Backend) call(wt *wait, op *iop.Op, seq uint32) {
	n, err := callBlocking(op)
	f.sched.Post(iop.Event{To: f, Ref: wt, Seq: seq, N: n, Err: err})
}

// Posted delivers the result of a blocking call to its task.
func (f *Backend) Posted(e *iop.Event) {
	wt := e.Ref.(*wait)
	if wt.seq != e.Seq || !wt.parked || wt.fd != blockingCall {
		return // never expected: a blocking wait ends only here
	}
	wt.fd = noFd
	switch c := wt.cancel; {
	case c != nil:
		if e.Err == nil && makesFd(wt.op.Code) {
			closeFd(e.N)
		}
		f.finish(wt, 0, c)
	default:
		f.finish(wt, e.N, e.Err)
	}
}

// makesFd reports whether an operation of code c returns a new fd.
func makesFd(c iop.Code) bool { return c == iop.Openat }
