package iop

import (
	"time"

	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sys"
)

// Backend is one I/O mechanism under an executor: io_uring
// (task/internal/ring) or the fallback (task/internal/fallback).
type Backend interface {
	// Start begins op for w (see the package doc): Done, or Parked.
	Start(w *Waiter, op *Op) Status
	// Retry goes on with w's operation after a wake with Again; a non-nil
	// stop ends it with that error instead.
	Retry(w *Waiter, stop error) Status
	// Cancel ends w's parked operation early with err (the task's context
	// ended, the executor closes, its deadline passed). The wake still
	// comes from the backend.
	Cancel(w *Waiter, err error)

	// Poll delivers what completed; with block set and nothing runnable
	// (Sched.Runnable) it first waits for a completion or a Wake.
	Poll(block bool)
	// The Waker of the executor's Inbox (Wake and RaiseWork from any
	// goroutine), and whether posted work waits.
	poll.Waker
	HasWork() bool

	// CancelAll cancels what is in flight when Close begins.
	CancelAll()
	// Busy is the number of operations outstanding.
	Busy() int
	// Quiet reports whether nothing of the backend's own is outstanding.
	Quiet() bool
	// WaitClosing waits briefly for completions during Close.
	WaitClosing()
	// Abandon gives up on the operations in flight: Close calls it past
	// the close wait, before it stops their tasks (and again at its end
	// if some are still there). Their memory stays referenced for good
	// (the kernel may still write it), and once it returns nothing of the
	// backend's own uses an fd number they name any more: the tasks'
	// callers may close them, and the numbers go to other files.
	Abandon()
	// Close releases the backend (the ring, the poller).
	Close() error
	// Stats adds the backend's counters to s.
	Stats(s *Stats)
}

// Stats are a backend's counters.
type Stats struct {
	Parks       uint64 // the executor slept: nothing to run
	KernelWaits uint64 // of those, sleeps inside io_uring_enter
	Wakes       uint64 // wakeups other goroutines sent a sleeping executor
	SQFullWaits uint64 // the SQ was full: submitted and reaped to make room
	CQOverflows uint64 // CQEs the kernel had to hold back
}

// Sched is what a backend asks of the executor above it (executor thread,
// but Post).
type Sched interface {
	// Drain takes the messages other goroutines posted to the executor.
	Drain()
	// Runnable reports whether a task can run (then nothing waits).
	Runnable() bool
	// Closing reports whether the executor's close began: its shutdown
	// runs in the loop, so a backend must not wait for a post then.
	Closing() bool
	// Trim stops idle workers before the executor sleeps.
	Trim(now time.Time)
	// Signalled reports, and forgets, that a goroutine was made runnable
	// since the last wait (the next wait parks at once, giving up the P).
	Signalled() bool
	// Post hands e to e.To.Posted on the executor's thread, from any
	// goroutine; it is dropped once the executor has stopped.
	Post(e Event)
}

// Event is what a backend's goroutine (a blocking call's) hands to the
// executor's thread.
type Event struct {
	To  Receiver
	Ref any    // the backend's record the event is for
	Seq uint32 // which of its waits
	N   int
	Err error
}

// Receiver takes Events on the executor's thread.
type Receiver interface {
	Posted(e *Event)
}

// RawSQEs is the optional interface of a backend that runs raw SQEs
// (io_uring: T.Await), checked once when the executor starts. The task
// fills the SQE itself, between the two calls, so that its prep function
// never leaves its stack.
type RawSQEs interface {
	// RawSQE takes an SQE for w's raw operation (with room for a
	// LINK_TIMEOUT behind it when deadline is not 0).
	RawSQE(w *Waiter, deadline int64) (*sys.SQE, error)
	// SubmitRaw queues s, which the caller filled after RawSQE: Parked,
	// or Done when the kernel lacks its opcode (nothing is submitted).
	SubmitRaw(w *Waiter, s *sys.SQE, deadline int64) Status
	// AbandonRaw lets go of s, taken by RawSQE, when the caller did not
	// fill it (its prep panicked): nothing is submitted for it.
	AbandonRaw(w *Waiter, s *sys.SQE)
}
