//go:build linux

package ring

import (
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// Start begins op for w: a request in a slot of its own (Parked until its
// CQE), or, where a shortcut serves it, the result at once (Done).
func (r *Backend) Start(w *iop.Waiter, op *iop.Op) iop.Status {
	switch op.Code {
	case iop.Read, iop.ReadCached, iop.Recv, iop.Send:
		if st, ok := r.shortcut(w, op); ok {
			return st
		}
	case iop.Link:
		return r.link(w, op)
	case iop.Close:
		r.dropKept(op.Fd)
	}
	sl := r.allocSlot()
	if err := sl.setPaths(op); err != nil {
		r.freeSlot(sl)
		return w.Finish(0, err)
	}
	s, err := r.sqe(op.Deadline != 0)
	if err != nil {
		r.freeSlot(sl)
		return w.Finish(0, err)
	}
	if err := r.build(s, sl, op); err != nil {
		r.abandon(s, sl)
		return w.Finish(0, err)
	}
	return r.submit(w, s, sl, op.Deadline)
}

// submit queues s, the SQE of the op in sl, for w (behind it a
// LINK_TIMEOUT for the deadline, when there is one).
func (r *Backend) submit(w *iop.Waiter, s *sys.SQE, sl *slot, deadline int64) iop.Status {
	s.UserData = sl.ud()
	w.Linked = deadline != 0 && r.linkTimeout(s, sl, deadline)
	sl.w = w
	w.Pending = 1
	w.Ref = sl
	return iop.Parked
}

// RawSQE takes a slot and an SQE for w's raw operation (iop.RawSQEs).
func (r *Backend) RawSQE(w *iop.Waiter, deadline int64) (*sys.SQE, error) {
	sl := r.allocSlot()
	s, err := r.sqe(deadline != 0)
	if err != nil {
		r.freeSlot(sl)
		return nil, err
	}
	w.Ref = sl
	return s, nil
}

// SubmitRaw queues s, filled by the caller after RawSQE, unless the kernel
// lacks its opcode (an *OpError wrapping uring.ErrUnsupported that names
// it).
func (r *Backend) SubmitRaw(w *iop.Waiter, s *sys.SQE, deadline int64) iop.Status {
	sl := w.Ref.(*slot)
	if code := s.Opcode; !feature.OpKnown(code) {
		if err := feature.OpMiss(code); err != nil {
			// abandon rewrites the whole SQE: prep's flags (a link) go too.
			fd := int(s.Fd)
			r.abandon(s, sl)
			w.Ref = nil
			return w.Finish(0, &cqe.Error{Name: "await", Fd: fd, Err: err})
		}
	}
	return r.submit(w, s, sl, deadline)
}

// AbandonRaw lets go of s, taken by RawSQE for w, when the caller could
// not fill it (its prep panicked): s, half-filled, becomes a NOP nobody
// waits for, and its slot is freed.
func (r *Backend) AbandonRaw(w *iop.Waiter, s *sys.SQE) {
	if sl, ok := w.Ref.(*slot); ok {
		r.abandon(s, sl)
	}
	w.Ref = nil
}

// sqe gets the SQE of an op (with room for its LINK_TIMEOUT behind it
// when linked).
func (r *Backend) sqe(linked bool) (*sys.SQE, error) {
	if !linked {
		if s, err := r.ring.GetSQE(); err == nil {
			return s, nil
		}
		return r.sqeRoom(1)
	}
	return r.sqeRoom(2)
}

// sqeRoom gets an SQE once the SQ has room for n, submitting and reaping
// to make room.
func (r *Backend) sqeRoom(n uint32) (*sys.SQE, error) {
	for i := 0; r.ring.SQSpace() < n; i++ {
		if i == 0 {
			r.sqFull++
		}
		if i == 100 {
			return nil, uring.ErrSQFull
		}
		_, _ = r.ring.Submit()
		r.reap()
	}
	s, err := r.ring.GetSQE()
	if err == uring.ErrClosed {
		err = iop.ErrClosed
	}
	return s, err
}

// abandon turns the SQE of an op whose builder rejected an argument (or
// that the kernel cannot run) into a NOP nobody waits for, and frees the
// slot.
func (r *Backend) abandon(s *sys.SQE, sl *slot) {
	sqe.Nop(s)
	s.UserData = udIgnore
	r.freeSlot(sl)
}

// linkTimeout links a LINK_TIMEOUT for the deadline behind s. Not on an
// IOPOLL ring: the kernel refuses timeouts there (EINVAL at prep), which
// would cancel s; the context's Done still cancels the op at the deadline.
func (r *Backend) linkTimeout(s *sys.SQE, sl *slot, deadline int64) bool {
	if r.core.IOPoll() {
		return false
	}
	lt, err := r.ring.GetSQE()
	if err != nil {
		return false // room for it was reserved; a closed ring fails the op anyway
	}
	if err := sqe.LinkTimeout(lt, &sl.lts, max(time.Until(time.Unix(0, deadline)), 0), 0); err != nil {
		sqe.Nop(lt)
		lt.UserData = udIgnore
		return false
	}
	lt.UserData = udIgnore
	sqe.SetLink(s)
	sl.linkedTO = true
	return true
}
