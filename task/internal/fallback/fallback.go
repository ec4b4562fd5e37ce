package fallback

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/task/internal/iop"
)

// Backend is the fallback backend of one executor. The wake protocol is
// the Core's own poll.Sleeper: an Inbox post raises the work flag, then
// claims the sleep and wakes the executor; the executor stores its sleep
// state before it checks the flag.
type Backend struct {
	sched  iop.Sched
	sl     poll.Sleeper  // the sleep state is fbParked while the executor parks
	wakeCh chan struct{} // where there is no poller
	p      poller        // fd readiness; nil where there is none
	timers timerHeap
	timer  *time.Timer // the park's deadline where there is no poller
	parks  uint64
	wakes  atomic.Uint64
	busy   int     // waits outstanding
	free   []*wait // pooled wait records

	calls     []*wait        // the blocking calls in flight
	abandoned bool           // Close gave up on them: no more begin
	left      sync.WaitGroup // the borrowing calls Abandon waits for
}

// poller waits for fds to become ready, for the fallback.
type poller interface {
	// arm registers wt's interest in fd becoming ready for ev (pollIn or
	// pollOut); errNotPollable for a file that is always ready (a regular
	// file).
	arm(wt *wait, fd int, ev uint32) error
	// disarm forgets wt's interest (its wait was cancelled).
	disarm(wt *wait, fd int, ev uint32)
	// ready delivers what is ready without waiting: the waits for it end.
	ready(f *Backend)
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

// errNotPollable: the fd cannot be waited for (a regular file): run the
// call as a blocking one instead.
var errNotPollable = errors.New("task: fd is not pollable")

// New makes an executor's fallback backend (on its thread).
func New(s iop.Sched) (*Backend, error) {
	f := &Backend{sched: s, wakeCh: make(chan struct{}, 1)}
	if !NoPoller {
		p, err := newPoller()
		if err != nil {
			return nil, err
		}
		f.p = p
	}
	return f, nil
}

// HasPoller reports whether the backend waits for fds (tests).
func (f *Backend) HasPoller() bool { return f.p != nil }

// RaiseWork, Wake and TakeWork make the fallback the Waker of the
// executor's Inbox.
func (f *Backend) RaiseWork()     { f.sl.RaiseWork() }
func (f *Backend) TakeWork() bool { return f.sl.TakeWork() }

// HasWork reports whether work was posted to the executor.
func (f *Backend) HasWork() bool { return f.sl.HasWork() }

// SleepState is the executor's sleep state now (tests: 0 while awake).
func (f *Backend) SleepState() uint32 { return f.sl.State() }

// fbParked is the fallback executor's one kind of sleep.
const fbParked = 1

// Parked reports whether the executor parks (or is about to): its sleep
// state is set and no work was raised since.
func (f *Backend) Parked() bool { return f.sl.State() == fbParked && !f.sl.HasWork() }

// Rescue ends a park without the wake protocol (an eventfd write, or a
// token on the wake channel): tests that count lost wakes end such a park
// with it, so that they report the count instead of hanging.
func (f *Backend) Rescue() {
	if f.p != nil {
		f.p.wake()
		return
	}
	select {
	case f.wakeCh <- struct{}{}:
	default:
	}
}

func (f *Backend) Wake() {
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

// Poll delivers what is ready (posts, fds, timers) and, when block is set,
// nothing is runnable and no close began, waits for the next of them.
func (f *Backend) Poll(block bool) {
	f.sched.Drain()
	// A close this drain took needs the scheduler's shutdown: no post is left to end a park.
	if f.sched.Runnable() || f.sched.Closing() {
		block = false
	}
	now := time.Now()
	f.fire(now)
	if f.p != nil {
		f.p.ready(f)
	}
	if !block || f.sched.Runnable() {
		return
	}
	f.sched.Trim(now)
	deadline := f.timers.next()
	// Pairs with the Inbox's RaiseWork before Wake (poll.Sleeper).
	if f.sl.Begin(fbParked) {
		f.parks++
		f.park(deadline)
		f.sl.End()
	}
	f.fire(time.Now())
	if f.p != nil {
		f.p.ready(f)
	}
}

// park waits for a wake, a ready fd or deadline (none when zero): it has
// no other bound.
func (f *Backend) park(deadline time.Time) {
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

// NoPoller starts fallback executors without a poller, as on systems
// that have none (Windows): tests run the scheduler's park on the wake
// channel and timers with it.
var NoPoller bool

// fire ends the waits whose timers are due.
func (f *Backend) fire(now time.Time) {
	for f.timers.Len() > 0 && f.timers[0].when <= now.UnixNano() {
		e := popTimer(&f.timers)
		wt := e.wt
		if wt.seq != e.seq || !wt.parked {
			continue // that wait ended otherwise
		}
		if e.sleep {
			f.finish(wt, 0, nil)
		} else {
			f.cancelWait(wt, context.DeadlineExceeded)
		}
	}
}

// Stats adds the parks and wakes.
func (f *Backend) Stats(s *iop.Stats) {
	s.Parks, s.Wakes = f.parks, f.wakes.Load()
}

// Busy is the number of waits outstanding.
func (f *Backend) Busy() int { return f.busy }

// CancelAll does nothing: Close interrupts every task itself.
func (f *Backend) CancelAll() {}

// Quiet: no blocking call is outstanding.
func (f *Backend) Quiet() bool { return true }

// WaitClosing waits briefly for blocking calls during shutdown.
func (f *Backend) WaitClosing() {
	if f.sl.Begin(fbParked) {
		f.park(time.Now().Add(10 * time.Millisecond))
		f.sl.End()
	}
	f.sched.Drain()
	f.fire(time.Now())
	if f.p != nil {
		f.p.ready(f)
	}
}

// Close closes the poller.
func (f *Backend) Close() error {
	if f.p != nil {
		return f.p.close()
	}
	return nil
}
