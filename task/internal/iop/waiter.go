package iop

import "net/netip"

// Status says where an operation stands after Start or Retry, and after
// the wake of a parked task (Waiter.St).
type Status uint8

const (
	Done   Status = iota // finished: the results are in the Waiter
	Parked               // the task parks until the backend wakes it
	Again                // the fd is ready now: the task calls Retry
)

// Task is the scheduler's side of a Waiter.
type Task interface {
	// Wake makes the parked task runnable (executor thread).
	Wake()
}

// Waiter is a task as its backend sees it: where results go, how to wake
// it, and what the backend keeps per task. One per task record; executor
// thread only.
type Waiter struct {
	Task Task // set once, by the scheduler

	// Results of the operation, set by the backend before Done.
	St        Status
	Linked    bool   // a LINK_TIMEOUT was attached: an ECANCELED may be the deadline's
	CFlags    uint32 // the CQE's flags
	Res       int    // >= 0: bytes, an fd, events; < 0: a negated errno
	Err       error  // a failure that is no errno of the operation (see the package doc)
	Peer      netip.AddrPort
	OOBN      int
	RecvFlags int

	// The backend's: the record of the operation in flight (its slot, or
	// its wait), and what it keeps across a task's operations.
	Ref     any
	Pending int32 // completions still to come
	Run     uint8 // socket calls completed without a request in a row
	Drained bool  // the last receive emptied the socket
}

// Begin clears the results before Start.
func (w *Waiter) Begin() {
	w.Res, w.Err, w.Linked, w.CFlags = 0, nil, false, 0
}

// Finish stores a result that is known at once and returns Done.
func (w *Waiter) Finish(res int, err error) Status {
	w.Res, w.Err = res, err
	return Done
}
