package task

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/poll"
)

// The fallback backend: an executor without io_uring. Tasks still park
// and are resumed by the executor; what ends their waits is
//
//   - readiness of an fd, from the poller (epoll on Linux, parked in Go's
//     netpoller while the executor waits), for the non-blocking system
//     calls of sockets and pipes (a task tries the call, and waits for
//     readiness only when it would block);
//   - a goroutine that ran a blocking call (files, opens, renames, ...)
//     and posted its result: only the task parks, never the executor;
//   - a timer (Sleep, a context's deadline).
//
// The wake protocol is the Core's own poll.Sleeper: an Inbox post raises
// the work flag, then claims the sleep and wakes the executor; the
// executor stores its sleep state before it checks the flag.
type fallback struct {
	sl     poll.Sleeper  // the sleep state is fbParked while the executor parks
	wakeCh chan struct{} // where there is no poller
	p      poller        // fd readiness; nil where there is none
	timers timerHeap
	timer  *time.Timer // the park's deadline where there is no poller
	parks  uint64
	wakes  atomic.Uint64
}

// poller waits for fds to become ready, for the fallback.
type poller interface {
	// arm registers t's interest in fd becoming ready for ev (pollIn or
	// pollOut); errNotPollable for a file that is always ready (a regular
	// file).
	arm(t *T, fd int, ev uint32) error
	// disarm forgets t's interest (its wait was cancelled).
	disarm(t *T, fd int, ev uint32)
	// ready delivers what is ready without waiting: the tasks waiting for
	// it are woken.
	ready(ex *Executor)
	// park waits until something is ready or wake is called, or until the
	// deadline (zero: none); the goroutine parks, its thread is free.
	park(deadline time.Time) error
	wake()
	close() error
}

const (
	pollIn  = 1
	pollOut = 2
)

// T.fbFd when a task's fallback wait is not for an fd's readiness.
const (
	fbNoFd         = -1 // a sleep (or no wait)
	fbBlockingCall = -2 // a blocking call on a goroutine
)

// errNotPollable: the fd cannot be waited for (a regular file): run the
// call as a blocking one instead.
var errNotPollable = errors.New("task: fd is not pollable")

// startFallback makes the executor's fallback backend (on its thread).
func (ex *Executor) startFallback(why string) error {
	f := &fallback{wakeCh: make(chan struct{}, 1)}
	if !fbNoPoller {
		p, err := newPoller()
		if err != nil {
			return err
		}
		f.p = p
	}
	ex.fb = f
	ex.inbox.Bind(f)
	ex.backend = Backend{Kind: BackendFallback, Reason: why}
	return nil
}

// RaiseWork, Wake and TakeWork make the fallback the Waker of the
// executor's Inbox.
func (f *fallback) RaiseWork()     { f.sl.RaiseWork() }
func (f *fallback) TakeWork() bool { return f.sl.TakeWork() }

// fbParked is the fallback executor's one kind of sleep.
const fbParked = 1

func (f *fallback) Wake() {
	if f.sl.Claim() == 0 {
		return
	}
	f.wakes.Add(1)
	if f.p != nil {
		f.p.wake()
		return
	}
	select {
	case f.wakeCh <- struct{}{}:
	default:
	}
}

// poll delivers what is ready (posts, fds, timers) and, when block is set,
// nothing is runnable and no close began, waits for the next of them.
func (f *fallback) poll(ex *Executor, block bool) {
	ex.drain()
	// A close this drain took needs the loop's shutdown: no post is left to end a park.
	if ex.runnable() || ex.closing {
		block = false
	}
	now := time.Now()
	f.fire(ex, now)
	if f.p != nil {
		f.p.ready(ex)
	}
	if !block || ex.runnable() {
		return
	}
	ex.trimIdle(now)
	deadline := f.timers.next()
	// Pairs with the Inbox's RaiseWork before Wake (poll.Sleeper).
	if f.sl.Begin(fbParked) {
		f.parks++
		f.park(deadline)
		f.sl.End()
	}
	f.fire(ex, time.Now())
	if f.p != nil {
		f.p.ready(ex)
	}
}

// park sleeps until a wake, a ready fd or deadline (zero: none): no bound of its own.
func (f *fallback) park(deadline time.Time) {
	if f.p != nil {
		_ = f.p.park(deadline) // an error (never expected) only ends the park
		return
	}
	if deadline.IsZero() {
		<-f.wakeCh
		return
	}
	if f.timer == nil {
		f.timer = time.NewTimer(time.Until(deadline))
	} else {
		f.timer.Reset(time.Until(deadline))
	}
	select {
	case <-f.wakeCh:
		f.timer.Stop() // Go 1.23 timers: no stale tick after Stop, nothing to drain
	case <-f.timer.C:
	}
}

// fbNoPoller starts fallback executors without a poller, as on systems
// that have none (Windows): tests run the scheduler's park on the wake
// channel and timers with it.
var fbNoPoller bool

// fire ends the waits whose timers are due.
func (f *fallback) fire(ex *Executor, now time.Time) {
	for f.timers.Len() > 0 && f.timers[0].when <= now.UnixNano() {
		e := heap.Pop(&f.timers).(timerEntry)
		t := e.t
		if t.finished || t.parkTok != e.tok || t.parkKind != parkOp {
			continue // that wait ended otherwise
		}
		if e.sleep {
			t.fbErr = nil
			ex.wake(t)
		} else {
			ex.interrupt(t, context.DeadlineExceeded)
		}
	}
}

// fbWait parks t until fd is ready for ev (or its context ends, or the
// executor closes): nil when it is ready, errNotPollable when fd is a
// regular file, else the reason the wait ended.
func (t *T) fbWait(fd int, ev uint32) error {
	if err := t.check(); err != nil {
		return err
	}
	f := t.ex.fb
	if err := f.p.arm(t, fd, ev); err != nil {
		return err
	}
	t.fbFd, t.fbEv = int32(fd), ev
	return t.fbPark(true)
}

// fbSleep parks t for d.
func (t *T) fbSleep(d time.Duration) error {
	t.ex.countOp(classTimer, false)
	defer t.ex.doneOp(classTimer)
	if err := t.check(); err != nil {
		return err
	}
	t.fbFd = fbNoFd
	heap.Push(&t.ex.fb.timers, timerEntry{when: time.Now().Add(d).UnixNano(), t: t, tok: t.parkTok, sleep: true})
	return t.fbPark(false)
}

// fbPark parks t in an operation's wait (with its deadline when it has
// one) and returns how the wait ended.
func (t *T) fbPark(deadline bool) error {
	ex := t.ex
	if deadline && t.hasDeadline {
		heap.Push(&ex.fb.timers, timerEntry{when: t.deadline, t: t, tok: t.parkTok})
	}
	t.fbErr = nil
	ex.busy++
	t.parkKind = parkOp
	t.park()
	t.parkKind = parkNone
	ex.busy--
	t.fbFd = fbNoFd
	err := t.fbErr
	t.fbErr = nil
	return err
}

// fbBlocking runs fn, which may block, on a goroutine while t parks, and
// returns what fn returned. A cancellation (context, Close) does not end
// the wait: fn still has the buffers it was given, as a cancelled io_uring
// request has until its CQE; the call then returns the cancellation's
// error, and closeFd (when not nil) takes an fd fn produced meanwhile.
func fbBlocking[R any](t *T, name string, fd int, fn func() (R, error), closeFd func(R)) (R, error) {
	var zero R
	if err := t.check(); err != nil {
		return zero, opError(name, fd, err)
	}
	ex := t.ex
	var res R
	tok := t.parkTok
	t.fbCancel = nil
	go func() {
		r, err := fn()
		res = r // read by t after the message orders it
		ex.post(remoteMsg{kind: msgDone, t: t, tok: tok, err: err})
	}()
	t.fbFd = fbBlockingCall
	err := t.fbPark(false)
	if c := t.fbCancel; c != nil {
		t.fbCancel = nil
		if err == nil && closeFd != nil {
			closeFd(res)
		}
		return zero, opError(name, fd, c)
	}
	if err != nil {
		return zero, opError(name, fd, err)
	}
	return res, nil
}

// done delivers the result of a blocking call to its task.
func (f *fallback) done(ex *Executor, m *remoteMsg) {
	t := m.t
	if t.finished || t.parkTok != m.tok || t.parkKind != parkOp {
		return // never expected: a blocking wait ends only here
	}
	t.fbErr = m.err
	ex.wake(t)
}

// cancel ends t's operation wait with err: a readiness wait or a sleep at
// once, a blocking call when it returns (marked here).
func (f *fallback) cancel(ex *Executor, t *T, err error) {
	switch {
	case t.fbFd >= 0:
		f.p.disarm(t, int(t.fbFd), t.fbEv)
		t.fbFd = fbNoFd
		t.fbErr = err
		ex.wake(t)
	case t.fbFd == fbBlockingCall:
		if t.fbCancel == nil {
			t.fbCancel = err
		}
	default: // a sleep
		t.fbErr = err
		ex.wake(t)
	}
}

// quiet: no blocking call is outstanding.
func (f *fallback) quiet() bool { return true }

// waitClosing waits briefly for blocking calls during shutdown.
func (f *fallback) waitClosing(ex *Executor) {
	if f.sl.Begin(fbParked) {
		f.park(time.Now().Add(10 * time.Millisecond))
		f.sl.End()
	}
	ex.drain()
	f.fire(ex, time.Now())
	if f.p != nil {
		f.p.ready(ex)
	}
}

func (f *fallback) close() error {
	if f.p != nil {
		return f.p.close()
	}
	return nil
}

// timerEntry ends a wait of t (the one with parkTok tok) at when: a sleep,
// or a deadline that interrupts an operation.
type timerEntry struct {
	when  int64 // UnixNano
	t     *T
	tok   uint32
	sleep bool
}

type timerHeap []timerEntry

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].when < h[j].when }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)        { *h = append(*h, x.(timerEntry)) }
func (h *timerHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = timerEntry{}
	*h = old[:len(old)-1]
	return e
}

// next is the earliest deadline, or zero.
func (h timerHeap) next() time.Time {
	if len(h) == 0 {
		return time.Time{}
	}
	return time.Unix(0, h[0].when)
}

// unsupportedOp is the error of an operation only io_uring has, on the
// fallback backend.
func unsupportedOp(name, what string) error {
	return opError(name, -1, fmt.Errorf("%w: %s needs io_uring, and this executor runs on the fallback backend", uring.ErrUnsupported, what))
}
