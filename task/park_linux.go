//go:build linux

package task

import (
	"os"
	"time"

	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sys"
)

// efdOne is the 8-byte counter increment a waker writes to the eventfd.
var efdOne = []byte{1, 0, 0, 0, 0, 0, 0, 0}

// startPark registers an eventfd with the ring so that an idle executor
// parks its goroutine in Go's netpoller (its thread sleeps, its P runs
// other goroutines) instead of blocking the thread in io_uring_enter,
// which keeps the P in a system call until sysmon retakes it. Without the
// eventfd the executor keeps waiting in the kernel.
func (ex *Executor) startPark(spin time.Duration) {
	f, fd, err := sys.Eventfd("task-executor")
	if err != nil {
		return
	}
	if err := reg.RegisterEventfd(ex.ring, fd, false); err != nil {
		_ = f.Close()
		return
	}
	ex.ring.SetEventfdEnabled(false) // on only while parked
	ex.efd = f
	ex.spin = spin
	fl := ex.ring.SetupFlags()
	ex.canSpin = fl&sys.SetupDeferTaskrun == 0 || fl&sys.SetupTaskrunFlag != 0
}

// spinWait checks the ring for up to d without a system call; it reports
// whether there is something to reap or a message to drain.
func (ex *Executor) spinWait(d time.Duration) bool {
	if !ex.canSpin || d <= 0 {
		return false
	}
	r := ex.ring
	var start time.Time
	for i := 0; ; i++ {
		// SQ_TASKRUN: deferred completion work waits for a GETEVENTS enter.
		if r.SQFlags()&sys.SQTaskrun != 0 || r.CQReady() > 0 || ex.inboxN.Load() != 0 || ex.closeReq.Load() {
			return true
		}
		if i&31 == 0 {
			if i == 0 {
				start = time.Now()
			} else if time.Since(start) >= d {
				return false
			}
		}
	}
}

// parkGo parks the executor's goroutine on the eventfd until a completion
// or a post. The order avoids a lost wakeup:
//
//  1. the wake claim is cleared and sleeping is set, then the inbox is
//     checked (post appends, then reads sleeping: one side sees the other);
//  2. notifications on, then a non-blocking GETEVENTS enter (only when
//     SQ_TASKRUN says work waits, where the ring has TASKRUN_FLAG) runs the
//     completion work deferred so far and the CQ is checked: work queued
//     while the notifications were off may not signal again (with
//     DEFER_TASKRUN the kernel signals on the first item of an empty work
//     list), and the enter empties the list; work queued after it signals;
//  3. only then the eventfd read parks.
func (ex *Executor) parkGo() {
	ex.startSleep()
	if ex.inboxN.Load() == 0 && !ex.closeReq.Load() {
		r := ex.ring
		r.SetEventfdEnabled(true) // full barrier before the enter's list check
		var err error
		if ex.canSpin {
			// TASKRUN_FLAG: the kernel sets SQ_TASKRUN (a locked op) before it
			// reads the disabled bit, and the store above is a full barrier:
			// either it signals or Submit sees the flag and enters.
			_, err = r.Submit()
		} else {
			err = r.FlushOverflow()
		}
		if err == nil && r.CQReady() == 0 && ex.inboxN.Load() == 0 {
			if _, err := ex.efd.Read(ex.efdBuf[:]); err != nil {
				// Never expected: bound the wait in the kernel instead.
				_, _ = r.SubmitAndWaitTimeout(1, time.Millisecond)
			}
		}
		r.SetEventfdEnabled(false)
	}
	ex.sleeping.Store(false)
}

// startSleep clears the wake claim, then marks the executor sleeping. A
// claim (wakeSent) is cleared here, not when a sleep ends: a waker that
// saw the last sleep may claim after that end and send its wake into the
// awake executor (a MSG_RING CQE reaped in passing, or an eventfd count a
// kernel wait never reads), and a claim left standing would keep every
// later waker from waking the next sleep.
func (ex *Executor) startSleep() {
	ex.wakeSent.Store(false)
	ex.sleeping.Store(true)
}

// kick wakes an executor parked on its eventfd (any goroutine). The File
// refuses writes once closed, so a late waker never hits a reused fd.
func kick(f *os.File) {
	_, _ = f.Write(efdOne)
}
