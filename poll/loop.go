//go:build linux

package poll

import (
	"errors"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

const einval = syscall.EINVAL

// Loop is a completion loop that owns one Ring on one locked OS thread,
// through a Core. Its exported methods are safe for concurrent use except
// Prep, Start, Cancel, InFlight and Ring, which belong to the loop thread
// (handlers and Run).
type Loop struct {
	cfg      config
	c        *Core
	in       Inbox[msg]
	ring     *uring.Ring
	tid      int
	iopoll   bool
	sqpoll   bool
	strategy Strategy

	// Loop-thread state.
	local      []msg // messages taken from the inbox
	backlog    []msg // taken, waiting for SQ space
	unflushed  int   // SQEs prepared since the last Submit (SQPOLL)
	st         Stats
	closing    bool
	cancelAt   time.Time
	closeStart time.Time
	fatal      error
	plainWait  bool // Block's submit-and-wait may wait for 1 CQE without a timeout

	// Shared with other goroutines.
	started   chan struct{} // closed once c is set (or New failed)
	done      chan struct{}
	closeErr  error
	closed    atomic.Bool // Close was called (the loop may also stop itself: a handler's panic)
	final     Stats
	owner     atomic.Int64 // the loop thread's tid while the loop runs, else 0
	violation atomic.Int64 // ring calls off the loop thread (checkThread)
}

// checkThread makes every ring call check that it runs on the loop's
// thread (tests set it).
var checkThread = false

// New starts a loop: a goroutine locked to its OS thread, which creates
// the ring on that thread. It returns once the ring exists. A bad option
// argument is an *OptionError that names it.
func New(opts ...Option) (*Loop, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	l := &Loop{
		cfg:      cfg,
		strategy: cfg.Strategy,
		iopoll:   cfg.Strategy == IOPoll || cfg.Strategy == HybridIOPoll,
		sqpoll:   cfg.Strategy == SQPoll,
		done:     make(chan struct{}),
	}
	errc := make(chan error, 1)
	go l.run(errc)
	if err := <-errc; err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Loop) run(errc chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := l.start(); err != nil {
		l.owner.Store(0)
		errc <- err
		return
	}
	errc <- nil
	defer l.finish()
	l.runGuarded()
}

// runGuarded runs the loop; a handler or Go callback that panics or calls
// runtime.Goexit (a failed require in a test) becomes the loop's fatal
// error: the loop shuts down as after a ring failure (every CQE is still
// waited for, since memory may be lent out), and Close returns that error
// instead of waiting for a goroutine that is gone.
func (l *Loop) runGuarded() {
	returned := false
	defer func() {
		if returned {
			return
		}
		if p := recover(); p != nil {
			l.setFatal(&HandlerError{Value: p})
		} else {
			l.setFatal(&HandlerError{Goexit: true})
		}
		l.beginClose()
		l.runGuarded() // inside the deferred call: a Goexit cannot be stopped, only outlasted
	}()
	l.loop()
	returned = true
}

func (l *Loop) setFatal(err error) {
	if l.fatal == nil {
		l.fatal = err
	}
}

// start creates the ring and the wakeup path, on the loop thread.
func (l *Loop) start() error {
	l.tid = sys.Gettid()
	l.owner.Store(int64(l.tid))
	c, err := NewCore(l.cfg.coreOptions()...)
	if err != nil {
		if l.cfg.Strategy == HybridIOPoll && errors.Is(err, syscall.EINVAL) {
			return errors.Join(uring.ErrUnsupported, err)
		}
		return err
	}
	l.c, l.ring = c, c.Ring()
	l.in.Bind(c)
	l.st.Strategy = l.strategy.String()
	r := l.ring
	if l.cfg.WaitBatch > 1 && (r.Features()&sys.FeatMinTimeout == 0 || l.strategy == Park) {
		l.cfg.WaitBatch = 1 // no min-timeout: never hold a ready CQE back
	}
	l.plainWait = l.cfg.WaitBatch <= 1 && !l.sqpoll
	return nil
}

// loop runs until Close and every CQE are in. A round reaps and
// dispatches, then submits what the handlers prepared at once (one enter
// both submits and, under Block, waits), without polling the CQ again.
func (l *Loop) loop() {
	c := l.c
	for {
		if len(l.backlog) != 0 || c.HasWork() {
			l.takeWork()
		}
		if !l.closing && c.Stopping() {
			l.beginClose()
		}
		if l.closing && l.shutdownStep() {
			return
		}
		n := l.reap()
		if l.needSubmit() {
			if l.strategy == Block {
				l.submitAndWait() // one enter submits and waits
			} else if l.iopoll {
				l.enterIOPoll()
			} else {
				l.submit()
			}
			continue
		}
		if n > 0 {
			continue
		}
		if len(l.backlog) > 0 && l.sqpoll && l.ring.SQSpace() == 0 {
			l.waitSQSpace()
			continue
		}
		if c.InFlight() == 0 && !l.closing && len(l.backlog) == 0 {
			// Idle. Spin and Hybrid keep spinning for new work (it arrives
			// without a wakeup), then park.
			if (l.strategy == Spin || l.strategy == Hybrid) && l.spin() {
				continue
			}
			l.park()
			continue
		}
		switch {
		case l.iopoll:
			l.enterIOPoll() // the kernel polls the device; never sleeps
		case l.strategy == Block:
			l.waitKernel()
		case l.strategy == Park:
			l.waitPark()
		case l.spin():
		default:
			l.waitKernel()
		}
	}
}

// spin is Spin's, Hybrid's and SQPoll's spin through the Core's:
// WithSpinBudget empty polls, or Hybrid's WithSpinTime. It reports
// whether something came to reap or take.
func (l *Loop) spin() bool {
	t0 := time.Now()
	var found bool
	if l.strategy == Hybrid {
		found = l.c.Spin(0, l.cfg.SpinTime)
	} else {
		found = l.c.Spin(l.cfg.SpinBudget, 0)
	}
	l.st.SpinNanos += int64(time.Since(t0))
	return found
}

// needSubmit reports whether prepared SQEs wait for a submit.
func (l *Loop) needSubmit() bool {
	if l.sqpoll {
		return l.unflushed > 0
	}
	return l.unflushed > 0 || l.ring.SQReady() > 0
}

// reap dispatches the ready CQEs (flushing overflow and deferred work when
// the kernel flags them) and counts the flushing enters.
func (l *Loop) reap() int {
	if checkThread {
		l.assertThread()
	}
	if l.ring.CQReady() == 0 {
		f := l.ring.SQFlags()
		if f&sys.SQCQOverflow == 0 && (l.iopoll || f&sys.SQTaskrun == 0) {
			return 0
		}
		l.st.Enters++ // the reap enters with GETEVENTS to flush
		if f&sys.SQCQOverflow != 0 {
			l.st.OverflowFlushes++
		}
	}
	return l.c.Reap()
}

// submit publishes prepared SQEs (with SQPOLL it enters only to wake the
// SQ thread when IORING_SQ_NEED_WAKEUP is set).
func (l *Loop) submit() {
	if checkThread {
		l.assertThread()
	}
	if l.sqpoll {
		if l.ring.SQFlags()&sys.SQNeedWakeup != 0 {
			l.st.SQWakeups++
			l.st.Enters++
		}
	} else {
		l.st.Enters++
	}
	if l.ring.SQFlags()&sys.SQCQOverflow != 0 {
		l.st.OverflowFlushes++ // the submit enters with GETEVENTS, which flushes
	}
	l.unflushed = 0
	l.st.Submits++
	if _, err := l.ring.Submit(); err != nil {
		l.enterErr(err)
	}
}

// enterIOPoll submits what is prepared and polls for completions in one
// enter (GETEVENTS, min_complete 1: the kernel polls until one completes,
// it needs to reschedule, or nothing is left to poll).
func (l *Loop) enterIOPoll() {
	if checkThread {
		l.assertThread()
	}
	l.unflushed = 0
	l.st.Enters++
	if _, err := l.ring.SubmitAndWait(1); err != nil {
		l.enterErr(err)
	}
}

// submitAndWait is Block's hot path: one enter submits the batch and
// waits for a CQE, without the clock reads and EXT_ARG of a timed wait
// (wakeups end it; a closing loop and batched waits use waitKernel).
// Its time is not in BlockNanos: most such enters return at once with
// CQEs completed inline.
func (l *Loop) submitAndWait() {
	if l.closing || !l.plainWait {
		l.waitKernel()
		return
	}
	if checkThread {
		l.assertThread()
	}
	slept, err := l.c.SleepInKernel()
	if !slept {
		l.submit()
		return
	}
	l.unflushed = 0
	l.st.Submits++
	l.st.Waits++
	l.st.Enters++
	if err != nil {
		l.enterErr(err)
	}
}

// waitKernel submits what is prepared and sleeps in the kernel until a CQE
// arrives, a wakeup is posted, or WaitTimeout passes.
func (l *Loop) waitKernel() {
	if checkThread {
		l.assertThread()
	}
	if l.sqpoll && l.unflushed > 0 {
		l.submit()
	}
	timeout := l.cfg.WaitTimeout
	if l.closing {
		timeout = min(timeout, recancelEvery)
	}
	t0 := time.Now()
	// With WaitBatch > 1 the kernel holds ready CQEs back at most MinWait
	// (IORING_FEAT_MIN_TIMEOUT), and the Ring returns with what came.
	slept, err := l.c.SleepInKernelTimeout(l.cfg.WaitBatch, timeout, l.cfg.MinWait)
	if !slept {
		if l.needSubmit() {
			l.submit()
		}
		return
	}
	l.unflushed = 0
	l.st.BlockNanos += int64(time.Since(t0))
	l.st.Waits++
	l.st.Enters++
	if err != nil {
		l.enterErr(err)
	}
}

// waitSQSpace waits for the SQ thread to consume SQEs when requests wait
// for room.
func (l *Loop) waitSQSpace() {
	if checkThread {
		l.assertThread()
	}
	l.st.Enters++
	if err := l.ring.WaitSQSpace(); err != nil && !errors.Is(err, syscall.EINTR) {
		l.enterErr(err)
	}
}

// park sleeps in Go until work arrives (nothing is in flight).
func (l *Loop) park() {
	t0 := time.Now()
	l.c.ParkIdle()
	l.st.ParkNanos += int64(time.Since(t0))
}

// waitPark is Park's wait: it parks the loop goroutine in Go's netpoller
// on the ring's eventfd until a completion, a wakeup or the timeout (see
// Core.ParkNetpoll for the order that avoids a lost wakeup).
func (l *Loop) waitPark() {
	if checkThread {
		l.assertThread()
	}
	timeout := l.cfg.WaitTimeout
	if l.closing {
		timeout = min(timeout, recancelEvery)
	}
	t0 := time.Now()
	l.st.Enters++
	err := l.c.ParkNetpoll(timeout)
	l.st.BlockNanos += int64(time.Since(t0))
	l.st.Waits++
	if err != nil {
		l.enterErr(err)
	}
}

// enterErr handles an error from io_uring_enter: EAGAIN/EBUSY mean reap
// and retry; anything else ends the loop.
func (l *Loop) enterErr(err error) {
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EBUSY) {
		l.st.Busy++
		return
	}
	l.setFatal(err)
	l.beginClose()
}

// assertThread counts ring calls made off the loop thread (tests only;
// callers check checkThread first, so that the hot path pays one load).
func (l *Loop) assertThread() {
	if sys.Gettid() != l.tid {
		l.violation.Add(1)
	}
}

// Ring returns the loop's ring, for the loop thread only (registering
// files or buffers from a Run function, say).
func (l *Loop) Ring() *uring.Ring { return l.ring }

// InFlight returns how many operations hold a slot (loop thread only).
func (l *Loop) InFlight() int { return l.c.InFlight() }
