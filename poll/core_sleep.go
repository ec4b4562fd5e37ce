//go:build linux

package poll

import (
	"errors"
	"os"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/reg"
)

// Sleep states (the Core's Sleeper). A waker that swaps a sleep state back
// to awake owns the wakeup of that kind; the owner stores awake when its
// sleep ends. So there is no separate claim that could outlive a sleep.
const (
	awake       = 0
	sleepKernel = 1 // in io_uring_enter: woken by a CQE (the wake eventfd's poll)
	sleepChan   = 2 // idle, parked on parkCh
	sleepEfd    = 3 // parked in Go's netpoller on the ring's eventfd
)

// efdOne is the 8-byte counter increment a waker writes to an eventfd.
var efdOne = []byte{1, 0, 0, 0, 0, 0, 0, 0}

// Stop asks the owner to shut down (any goroutine): HasWork turns true
// until the owner's next Take (the owner checks Stopping after it), and a
// sleeping owner is woken. It reports whether this call was the first.
func (c *Core) Stop() bool {
	first := !c.stop.Swap(true)
	c.sl.RaiseWork()
	c.Wake()
	return first
}

// Stopping reports whether Stop was called.
func (c *Core) Stopping() bool { return c.stop.Load() }

// RaiseWork sets the work flag (an Inbox's Post does, before Wake).
func (c *Core) RaiseWork() { c.sl.RaiseWork() }

// TakeWork lowers the work flag and reports whether it was up (an Inbox's
// Take does, before it reads its queue).
func (c *Core) TakeWork() bool { return c.sl.TakeWork() }

// HasWork reports whether posted messages (or a Stop) wait for the owner
// (an Inbox's Take lowers the flag).
func (c *Core) HasWork() bool { return c.sl.HasWork() }

// Wake wakes the owner if it sleeps, with the wakeup its sleep needs (any
// goroutine); of several wakers only the one that swaps the state pays.
// Every path is safe against a concurrent Close: a write to an *os.File
// that Close closed fails instead of landing in a reused fd number.
func (c *Core) Wake() {
	s := c.sl.Claim()
	if s == awake {
		return
	}
	c.kicks.Add(1)
	switch s {
	case sleepKernel:
		c.wake.signal()
	case sleepEfd:
		_, _ = c.efd.Write(efdOne)
	case sleepChan:
		select {
		case c.parkCh <- struct{}{}:
		default:
		}
	}
}

// EndSleep marks the owner awake after a sleep (Sleeper.End).
func (c *Core) EndSleep() { c.sl.End() }

// BeginKernelSleep prepares a sleep in io_uring_enter: false means "do
// not sleep" (posted work waits, or the wake poll cannot be armed because
// the SQ is full). On true the owner enters with GETEVENTS (submitting
// what is queued) and calls EndSleep when the enter returns; a Wake in
// between completes the wake eventfd's poll, whose CQE ends the wait.
// After Stop the poll is not re-armed: a stopping owner sleeps only with
// a timeout, for the CQEs of what it cancelled.
func (c *Core) BeginKernelSleep() bool {
	if c.wake.f == nil {
		return false // nothing could end the sleep (IOPOLL, or not asked for)
	}
	if !c.wake.armed && !c.armWake() && !c.stop.Load() {
		return false
	}
	// Pairs with Post's store of the work flag before its claim: one side
	// sees the other (Sleeper).
	if !c.sl.Begin(sleepKernel) {
		return false
	}
	c.st.Sleeps++
	return true
}

// SleepInKernel is the one enter-and-sleep of every owner (Wait, Loop,
// the task executor): it submits what is queued and sleeps in
// io_uring_enter until a CQE or a Wake (BeginKernelSleep, SubmitAndWait(1),
// EndSleep). slept false: it did not enter (posted work waits, or nothing
// could end the sleep); the caller submits and goes on.
func (c *Core) SleepInKernel() (slept bool, err error) {
	if !c.BeginKernelSleep() {
		return false, nil
	}
	_, err = c.ring.SubmitAndWait(1) // EINTR is retried by the ring
	c.EndSleep()
	return true, err
}

// SleepInKernelTimeout is SleepInKernel for n CQEs, at most d (0: none),
// the kernel holding ready CQEs back at most minWait
// (IORING_FEAT_MIN_TIMEOUT; Ring.WaitCQEsTimeout). Its timeout is not an
// error.
func (c *Core) SleepInKernelTimeout(n uint32, d, minWait time.Duration) (slept bool, err error) {
	if !c.BeginKernelSleep() {
		return false, nil
	}
	_, err = c.ring.WaitCQEsTimeout(n, d, minWait)
	c.EndSleep()
	if errors.Is(err, uring.ErrTimeout) {
		err = nil
	}
	return true, err
}

// ParkIdle parks the owner's goroutine until Post, Stop or Wake (use it
// with nothing in flight: completions do not end it).
func (c *Core) ParkIdle() {
	if !c.sl.Begin(sleepChan) {
		return
	}
	<-c.parkCh
	c.st.Parks++
	c.EndSleep()
}

// startNetPark creates the eventfd, registers it with the ring and keeps
// its notifications off (IORING_CQ_EVENTFD_DISABLED) until the owner
// parks.
func (c *Core) startNetPark() error {
	f, fd, err := fdio.Eventfd("poll-core-eventfd")
	if err != nil {
		return os.NewSyscallError("eventfd2", err)
	}
	if err := reg.RegisterEventfd(c.ring, fd, false); err != nil {
		_ = f.Close()
		return err
	}
	c.efd = f
	c.ring.SetEventfdEnabled(false)
	return nil
}

// ParkNetpoll parks the owner's goroutine in Go's netpoller on the ring's
// eventfd (its thread sleeps, its P runs other goroutines) until a
// completion, a Post, a Wake or the timeout (0: none). The order avoids a
// lost wakeup:
//
//  1. sleeping = sleepEfd, then the work flag is checked (Post stores the
//     flag, then reads sleeping: one side sees the other);
//  2. notifications on, then the deferred completion work queued so far
//     runs and the CQ is checked: work queued while notifications were off
//     may not signal again (with DEFER_TASKRUN the kernel signals only on
//     the first item of an empty work list). With TASKRUN_FLAG the kernel
//     sets IORING_SQ_TASKRUN (a locked op) before it reads the disabled
//     bit, and the store that turned notifications on is a full barrier:
//     either it signals, or Submit sees the flag and enters to run the
//     work; without the flag a GETEVENTS enter runs it. Work queued after
//     that finds the list empty and the notifications on, so it signals;
//  3. only then the eventfd read parks.
//
// Kernels whose eventfd stops signalling deferred work (6.12: see
// eventfdSignalsDeferredWork) never get DEFER_TASKRUN on a NetPark Core.
// Where it signals that work late (6.18: an RCU grace period after the
// wakeup), a Core with operations in flight sleeps in io_uring_enter
// instead, for one CQE, a Wake or the timeout: the kernel wakes a waiting
// submitter at once. Not without a P to spare (GOMAXPROCS at most the
// running owners): the kernel wait would keep the P that the goroutines
// which feed the owner need, until sysmon retakes it. Nor once stopping:
// the wake poll is not re-armed then, and only a park hears a Wake.
func (c *Core) ParkNetpoll(timeout time.Duration) error {
	if c.efdLate && c.inflight > 0 && !c.stop.Load() && spareP() {
		slept, err := c.SleepInKernelTimeout(1, timeout, 0)
		if slept {
			c.st.KernelWaits++
			return err
		}
		if c.sl.HasWork() {
			return nil // posted work waits
		}
		// The wake poll could not be armed (a full SQ): the netpoller it is.
	}
	if !c.sl.Begin(sleepEfd) {
		return nil
	}
	r := c.ring
	r.SetEventfdEnabled(true) // full barrier before the checks below
	var err error
	if c.canFlag {
		_, err = r.Submit()
	} else {
		err = r.FlushOverflow()
	}
	if err == nil && r.CQReady() == 0 && !c.sl.HasWork() {
		if timeout > 0 {
			err = c.efd.SetReadDeadline(time.Now().Add(timeout))
			c.efdTimed = true
		} else if c.efdTimed {
			err = c.efd.SetReadDeadline(time.Time{})
			c.efdTimed = false
		}
		if err == nil {
			_, err = c.efd.Read(c.efdBuf[:])
		}
		c.st.NetParks++
	}
	r.SetEventfdEnabled(false)
	c.EndSleep()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.st.ParkTimeouts++
		err = nil
	}
	return err
}

// SleepState is what the owner of a Core is doing, as far as wakers are
// concerned.
type SleepState uint32

const (
	Awake        SleepState = awake       // running (or spinning)
	SleepKernel  SleepState = sleepKernel // in io_uring_enter
	SleepIdle    SleepState = sleepChan   // parked with nothing in flight
	SleepNetpoll SleepState = sleepEfd    // parked in Go's netpoller on the ring's eventfd
)

// SleepState returns what the owner is doing now (any goroutine; for
// tests and observers: it may change at once).
func (c *Core) SleepState() SleepState { return SleepState(c.sl.State()) }
