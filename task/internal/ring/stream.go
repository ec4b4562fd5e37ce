//go:build linux

package ring

import (
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// Multishot requests (iop.Streams). One request stays armed and posts a
// CQE per event; the stream queues them, each with its buffer taken out of
// the pool, and the task's iteration pops them in order and re-arms the
// request when the kernel drops it (a CQE without F_MORE that is not an
// end, or ENOBUFS when the buffer ring ran dry: the data stays in the
// socket or pipe, so nothing is lost).
//
// Kernels without the multishot form (accept before 5.19, recv before
// 6.0, read before 6.7, poll before 5.13) get the same stream over
// single-shot requests: each CQE ends its request, which is re-armed as a
// dropped multishot one is, with buffers selected from the same pool
// (IOSQE_BUFFER_SELECT), so results and buffer rules are the same.
//
// Once the iteration ends (Abort), entries never yielded are disposed of
// as they come: their buffers go back to the pool, accepted fds are
// closed, and read or received bytes are kept for the fd's next read
// (kept.go).

// ForceSingleShot makes every stream use one-shot requests (tests: the
// fallback forms also run on kernels that have the multishot ones).
var ForceSingleShot bool

// caps is the capability each multishot form needs.
var caps = [...]uring.Capability{
	iop.StreamAccept: uring.CapMultishotAccept,
	iop.StreamRecv:   uring.CapMultishotRecv,
	iop.StreamRead:   uring.CapMultishotRead,
	iop.StreamPoll:   uring.CapMultishotPoll,
}

// stream is the state of one iteration (allocated per loop, not per
// item), on the executor's thread.
type stream struct {
	r      *Backend
	w      *iop.Waiter
	kind   iop.StreamKind
	fd     int
	flags  int
	events uint32
	pool   *reg.BufPool
	single bool   // the kernel lacks the multishot form: one-shot requests
	id     fileID // read and recv: the file fd named at the start, whose bytes are kept

	sl     *slot // the armed request; nil once its last CQE came
	q      []iop.Entry
	qh     int  // q[qh:] is queued
	parked bool // its task waits for the next CQE
	ended  bool // the iteration ended: CQEs are disposed of as they come
}

// Stream makes a stream of kind k on fd for w's task (iop.Streams).
func (r *Backend) Stream(w *iop.Waiter, k iop.StreamKind, fd, flags int, events uint32, pool *reg.BufPool) iop.Stream {
	single := ForceSingleShot || uring.CheckCapability(caps[k]) != nil
	m := &stream{r: r, w: w, kind: k, fd: fd, flags: flags, events: events, pool: pool, single: single}
	if k == iop.StreamRead || k == iop.StreamRecv {
		// Now, while fd surely names the file: by the time entries are
		// disposed of it may have been closed and its number reused.
		m.id = identify(fd)
	}
	return m
}

// cqe receives every CQE of the armed request.
func (m *stream) cqe(res int32, flags uint32) {
	e := iop.Entry{Res: res}
	c := sys.CQE{Res: res, Flags: sys.CQEFlags(flags)} // decoded by package cqe; stays on the stack
	if _, ok := cqe.Buffer(&c); ok && m.pool != nil {
		bid, data, err := m.pool.Take(res, sys.CQEFlags(flags))
		switch {
		case err != nil:
			e.Err = err
		default:
			e.Bid, e.Data = bid, data
			e.Held = !cqe.BufMore(&c) // a piece of an incremental buffer is not out
		}
	}
	if !cqe.More(&c) {
		m.sl = nil
	}
	if m.ended {
		m.dispose(&e)
	} else {
		m.q = append(m.q, e)
	}
	if m.parked {
		m.w.St = iop.Done
		m.w.Task.Wake()
	}
}

// Pop takes the next queued entry; ENOBUFS from the pool is marked Dry.
func (m *stream) Pop() (iop.Entry, bool) {
	if m.qh == len(m.q) {
		return iop.Entry{}, false
	}
	e := m.take()
	if e.Err == nil && e.Res == -int32(unix.ENOBUFS) && m.pool != nil {
		// The ring ran dry: this loop's buffers are all back, re-arm.
		e.Dry = true
		m.r.c.Rearms++
	}
	return e, true
}

// take removes the first queued entry (there is one).
func (m *stream) take() iop.Entry {
	e := m.q[m.qh]
	m.q[m.qh] = iop.Entry{}
	if m.qh++; m.qh == len(m.q) {
		m.q, m.qh = m.q[:0], 0
	}
	return e
}

// Armed reports whether a request is in flight.
func (m *stream) Armed() bool { return m.sl != nil }

// Await marks the task parked for the next CQE: a cancel of its Waiter
// cancels the armed request meanwhile.
func (m *stream) Await(on bool) {
	if on {
		m.parked = true
		m.w.Ref = m.sl
		return
	}
	m.w.Ref = nil
	m.parked = false
}

// dispose releases what an entry that is never yielded holds; its data is
// kept for the fd's next read, as long as the fd names the stream's file.
func (m *stream) dispose(e *iop.Entry) {
	if e.Res > 0 && e.Data != nil && (m.kind == iop.StreamRead || m.kind == iop.StreamRecv) {
		m.r.keep(m.fd, m.id, e.Data)
	}
	m.Release(e)
	if m.kind == iop.StreamAccept && e.Res >= 0 {
		m.r.closeFdAsync(int(e.Res))
	}
}

// Release puts e's buffer back into the ring, once.
func (m *stream) Release(e *iop.Entry) {
	if e.Held {
		e.Held = false
		if err := m.pool.Put(e.Bid); err != nil {
			m.r.c.PutErrs++
		}
	}
	e.Data = nil
}

// Arm submits the request.
func (m *stream) Arm() error {
	r := m.r
	sl := r.allocSlot()
	s, err := r.sqe(false)
	if err != nil {
		r.freeSlot(sl)
		return err
	}
	switch {
	case m.single:
		err = m.prepSingle(s)
	case m.kind == iop.StreamAccept:
		err = sqe.AcceptMultishot(s, m.fd, nil, nil, m.flags)
	case m.kind == iop.StreamRecv:
		err = sqe.RecvMultishot(s, m.fd, m.flags, m.pool.Group())
	case m.kind == iop.StreamRead:
		err = sqe.ReadMultishot(s, m.fd, 0, 0, m.pool.Group())
	default:
		err = sqe.PollMultishot(s, m.fd, m.events)
	}
	if err != nil {
		r.abandon(s, sl)
		return err
	}
	s.UserData = sl.ud()
	sl.kind |= slotMultishot
	sl.multi, sl.heavy = m, true
	m.sl = sl
	r.c.Arms++
	return nil
}

// prepSingle fills s with the one-shot form of the request.
func (m *stream) prepSingle(s *sys.SQE) error {
	var err error
	switch m.kind {
	case iop.StreamAccept:
		return sqe.Accept(s, m.fd, nil, nil, m.flags)
	case iop.StreamRecv:
		err = sqe.Recv(s, m.fd, nil, m.flags)
	case iop.StreamRead:
		err = sqe.Read(s, m.fd, nil, -1) // the file position
	default:
		return sqe.PollAdd(s, m.fd, m.events)
	}
	if err == nil {
		m.pool.Select(s) // the whole buffer, from the pool's group
	}
	return err
}

// Abort ends the iteration without waiting: what is queued is disposed
// of, the request cancelled, and its remaining CQEs are disposed of as
// they come. It is also what a loop body that panicked gets (its
// coroutine must not switch while it unwinds).
func (m *stream) Abort() {
	m.parked = false // a coroutine stopped inside a wait never comes back to it
	m.ended = true
	for m.qh < len(m.q) {
		e := m.take()
		m.dispose(&e)
	}
	if m.sl != nil {
		m.r.cancelOp(m.sl)
	}
}
