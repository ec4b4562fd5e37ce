package task

import "sync/atomic"

// Notifier lets ordinary goroutines wake one task of an executor without
// allocating: the task waits with Wait, any goroutine calls Notify. A
// Notify while no task waits is remembered (once: Notifies before the
// next Wait count as one), so the next Wait returns at once; data written
// before Notify is visible to the task after its Wait returns. It is how
// a package above task hands work to a long-lived task of its own (package
// goio's sockets with WithRingConnWaits: one task per socket direction
// awaits the operations a goroutine asks for).
type Notifier struct {
	ex      *Executor
	pending atomic.Bool // a Notify not yet taken by a Wait
	t       *T          // the task parked in Wait (executor thread)
}

// NewNotifier makes a Notifier for a task of ex.
func NewNotifier(ex *Executor) *Notifier { return &Notifier{ex: ex} }

// Notify wakes the task waiting in Wait, or makes the next Wait return at
// once. Safe from any goroutine, and from tasks; allocates nothing. After
// the executor stopped it does nothing.
func (n *Notifier) Notify() {
	if n.pending.Swap(true) {
		return // a Notify is pending: its message wakes the waiter, or its Wait takes it
	}
	n.ex.post(remoteMsg{kind: msgNotify, n: n})
}

// Wait parks t until a Notify that came after the previous Wait returned
// (at once if one already did). It returns the error of t's context when
// that ends first, ErrClosed when the executor closes. t must be a task of
// the Notifier's executor, and one task waits at a time.
func (n *Notifier) Wait(t *T) error {
	if t.ex != n.ex {
		return argError("Notifier.Wait", "t", "is a task of another executor")
	}
	for {
		if n.pending.Swap(false) {
			return nil
		}
		if err := t.check(); err != nil {
			return err
		}
		// A Notify after the Swap posts a message, which the executor
		// takes only once t has parked: it finds n.t set.
		n.t = t
		err := t.parkOn(parkWait)
		n.t = nil
		if err != nil {
			return err
		}
	}
}

// notified delivers a Notify (executor thread): the task in Wait, if any,
// runs again.
func (n *Notifier) notified(ex *Executor) {
	if t := n.t; t != nil && !t.finished && t.parkKind == parkWait {
		ex.wake(t)
	}
}
