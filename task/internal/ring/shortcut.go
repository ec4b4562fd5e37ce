//go:build linux

package ring

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/task/internal/iop"
)

// DirectBudget is how many socket calls in a row a task may complete
// without queueing a request; then one goes through the ring and the task
// parks, so a task whose socket always has data cannot keep the others of
// its executor (and the ring's completions) waiting.
const DirectBudget = 16

// shortcut serves op without a request where that saves a round trip:
// bytes a multishot loop of the fd kept (Read, Recv), the page cache
// (ReadCached, preadv2 with RWF_NOWAIT), a socket with data or room (Recv,
// Send with MSG_DONTWAIT). ok is false when op goes to the ring; a call
// that would block does, so results and errors are the ring's.
func (r *Backend) shortcut(w *iop.Waiter, op *iop.Op) (st iop.Status, ok bool) {
	fd, buf := op.Fd, op.Buf
	switch op.Code {
	case iop.Read:
		if !op.Fixed && len(r.kept) != 0 { // bytes a multishot loop read and did not yield
			if n := r.takeKept(fd, buf, false); n > 0 {
				return w.Finish(n, nil), true
			}
		}
	case iop.ReadCached:
		// Only when the read would go to the kernel alone: batches stay
		// batches.
		if len(buf) > 0 && r.alone() && r.direct(w, op) {
			if n, err := fdio.PreadCached(fd, buf, op.Off); err == nil {
				r.c.CacheHits++
				return w.Finish(n, nil), true
			}
		}
	case iop.Recv:
		if len(r.kept) != 0 { // bytes a multishot loop received and did not yield
			if n := r.takeKept(fd, buf, op.Flags&unix.MSG_PEEK != 0); n > 0 {
				return w.Finish(n, nil), true
			}
		}
		// Tried directly only when the last recv left data behind (a full
		// buffer, or CQE_F_SOCK_NONEMPTY): a ping-pong's EAGAIN costs a syscall.
		if op.Flags == 0 && len(buf) > 0 && !w.Drained && r.direct(w, op) {
			n, err := fdio.RecvNonblock(fd, buf)
			if done, err := directDone(err); done {
				w.Drained = n < len(buf)
				return w.Finish(n, err), true
			}
		}
	case iop.Send:
		if op.Flags == 0 && len(buf) > 0 && r.direct(w, op) {
			n, err := fdio.SendNonblock(fd, buf)
			if done, err := directDone(err); done {
				return w.Finish(n, err), true
			}
		}
	}
	return 0, false
}

// alone reports whether an op would be the only one in its submit:
// nothing else runnable on the executor and nothing queued in the SQ.
func (r *Backend) alone() bool {
	return !r.sched.Runnable() && r.ring.SQReady() == 0
}

// direct reports whether w's task may try the call itself before queueing
// a request. An expired deadline takes the ring path, which reports it
// (the task checked its context and the executor before Start).
func (r *Backend) direct(w *iop.Waiter, op *iop.Op) bool {
	if op.Deadline != 0 && time.Now().UnixNano() >= op.Deadline {
		return false
	}
	if w.Run++; w.Run > DirectBudget {
		w.Run = 0
		return false
	}
	return true
}

// directDone maps the error of a direct socket call: false when it would
// block (EAGAIN) or was interrupted, and the request goes to the ring;
// else the error is the op's (an errno as the ring's CQE would give it).
func directDone(err error) (bool, error) {
	if err == nil {
		return true, nil
	}
	if errno, ok := err.(unix.Errno); ok && (errno == unix.EAGAIN || errno == unix.EINTR) {
		return false, nil
	}
	return true, err
}
