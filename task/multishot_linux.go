//go:build linux

package task

import (
	"errors"
	"iter"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// Multishot operations as iterators. One request stays armed and posts a
// CQE per event; the iterator yields them in order and re-arms the request
// when the kernel drops it (a CQE without F_MORE that is not an end, or
// ENOBUFS when the buffer ring ran dry: the data stays in the socket or
// pipe, so nothing is lost).
//
// Buffers: the caller owns the reg.BufPool (register it from a task of the
// executor, e.g. reg.NewBufPool(t.Executor().Ring(), cfg), and close it
// after every loop that selects from its group has returned). A yielded
// []byte lies in a pool buffer that goes back to the ring when the loop
// body returns: copy what must outlive the iteration. The iterator takes
// each buffer id out of the pool when its CQE arrives and puts it back
// exactly once: after the body, or, for CQEs that are never yielded, when
// the loop ends.
//
// Kernels without the multishot form (accept before 5.19, recv before
// 6.0, read before 6.7, poll before 5.13) get the same iterator over
// single-shot requests: each CQE ends its request, which the iterator
// re-arms as it re-arms a dropped multishot one, with buffers selected
// from the same pool (IOSQE_BUFFER_SELECT), so results and buffer rules
// are the same.
//
// The sequence ends after yielding an error (the context's error for a
// cancelled task, ErrClosed while the executor closes), at end of stream
// (recv/read), or when the loop body breaks. Whichever way it ends, the
// request is cancelled and the iterator waits for its last CQE before the
// loop statement returns, so the pool may be closed right after it; fds
// accepted but not yielded are closed. Bytes read or received but not
// yielded (the kernel may read again before the cancel lands) are not
// lost: the executor keeps them, and the next Read, Recv, ReadMultishot
// or RecvMultishot of the fd on this executor returns them first
// (T.Close of the fd drops them).

type msKind uint8

const (
	msAccept msKind = iota
	msRecv
	msRead
	msPoll
)

var msNames = [...]struct{ fn, op string }{
	msAccept: {"AcceptMultishot", "accept_multishot"},
	msRecv:   {"RecvMultishot", "recv_multishot"},
	msRead:   {"ReadMultishot", "read_multishot"},
	msPoll:   {"PollMultishot", "poll_multishot"},
}

// msEntry is one CQE of a multishot request, with its buffer taken.
type msEntry struct {
	res    int32
	flags  uint32
	err    error // the pool refused the CQE's buffer
	data   []byte
	bid    uint16
	hasBuf bool // bid is out of the pool: put it back once
}

// multishot is the state of one iteration (allocated per loop, not per
// item). It is touched only on the executor's thread.
type multishot struct {
	t      *T
	ex     *Executor
	kind   msKind
	fd     int
	flags  int
	events uint32
	pool   *reg.BufPool
	single bool // the kernel lacks the multishot form: one-shot requests

	sl      *opSlot // the armed request; nil once its last CQE came
	q       fifo[msEntry]
	cur     msEntry // the entry the loop body holds
	holding bool
	parked  bool // its task waits in next
	ended   bool // the loop ended: CQEs are disposed of as they come
	done    bool // stop finished
	eof     bool
	dry     int // ENOBUFS in a row
}

func (t *T) newMultishot(kind msKind, fd int, pool *reg.BufPool) *multishot {
	single := msForceSingle || uring.Supports(msCaps[kind]) != nil
	return &multishot{t: t, ex: t.ex, kind: kind, fd: fd, pool: pool, single: single}
}

// msForceSingle makes every iterator use one-shot requests (tests: the
// fallback also runs on kernels that have the multishot forms).
var msForceSingle bool

// msCaps is the capability each multishot form needs.
var msCaps = [...]uring.Capability{
	msAccept: uring.CapMultishotAccept,
	msRecv:   uring.CapMultishotRecv,
	msRead:   uring.CapMultishotRead,
	msPoll:   uring.CapMultishotPoll,
}

// errEnd ends a sequence without an error.
var errEnd = errors.New("task: end of multishot stream")

// cqe receives every CQE of the armed request (executor thread).
func (m *multishot) cqe(res int32, flags uint32) {
	e := msEntry{res: res, flags: flags}
	c := sys.CQE{Res: res, Flags: sys.CQEFlags(flags)} // decoded by package cqe; stays on the stack
	if _, ok := cqe.Buffer(&c); ok && m.pool != nil {
		bid, data, err := m.pool.Take(res, sys.CQEFlags(flags))
		switch {
		case err != nil:
			e.err = err
		default:
			e.bid, e.data = bid, data
			e.hasBuf = !cqe.BufMore(&c) // a piece of an incremental buffer is not out
		}
	}
	if !cqe.More(&c) {
		m.sl = nil
	}
	if m.ended {
		m.dispose(&e)
	} else {
		m.q.push(e)
	}
	if m.parked {
		m.ex.wake(m.t)
	}
}

// dispose releases what an entry that is never yielded holds; its data is
// kept for the fd's next read (kept_linux.go).
func (m *multishot) dispose(e *msEntry) {
	if e.res > 0 && e.data != nil && (m.kind == msRead || m.kind == msRecv) {
		m.ex.keep(m.fd, e.data)
	}
	m.release(e)
	if m.kind == msAccept && e.res >= 0 {
		m.ex.closeFdAsync(int(e.res))
	}
}

// release puts e's buffer back into the ring, once.
func (m *multishot) release(e *msEntry) {
	if e.hasBuf {
		e.hasBuf = false
		if err := m.pool.Put(e.bid); err != nil {
			m.ex.stats.msPutErrs++
		}
	}
	e.data = nil
}

// arm submits the request.
func (m *multishot) arm() error {
	t := m.t
	nm := &msNames[m.kind]
	s, sl, err := t.start(nm.op, m.fd)
	if err != nil {
		return err
	}
	switch {
	case m.single:
		err = m.prepSingle(s)
	case m.kind == msAccept:
		err = sqe.AcceptMultishot(s, m.fd, nil, nil, m.flags)
	case m.kind == msRecv:
		err = sqe.RecvMultishot(s, m.fd, m.flags, m.pool.Group())
	case m.kind == msRead:
		err = sqe.ReadMultishot(s, m.fd, 0, 0, m.pool.Group())
	default:
		err = sqe.PollMultishot(s, m.fd, m.events)
	}
	if err != nil {
		return t.abandon(s, sl, nm.fn, err)
	}
	s.UserData = sl.ud()
	sl.kind |= slotMultishot
	sl.multi, sl.heavy = m, true
	m.sl = sl
	t.ex.stats.msArms++
	return nil
}

// prepSingle fills s with the one-shot form of the request.
func (m *multishot) prepSingle(s *sys.SQE) error {
	var err error
	switch m.kind {
	case msAccept:
		return sqe.Accept(s, m.fd, nil, nil, m.flags)
	case msRecv:
		err = sqe.Recv(s, m.fd, nil, m.flags)
	case msRead:
		err = sqe.Read(s, m.fd, nil, CurrentPos)
	default:
		return sqe.PollAdd(s, m.fd, m.events)
	}
	if err == nil {
		m.pool.Select(s) // the whole buffer, from the pool's group
	}
	return err
}

// wait parks the task until the request posts a CQE (or is interrupted:
// a cancelled context or Close cancels the request, whose last CQE wakes
// it).
func (m *multishot) wait() {
	t := m.t
	m.parked = true
	t.op = m.sl
	t.parkKind = parkOp
	t.park()
	t.parkKind = parkNone
	t.op = nil
	m.parked = false
}

// next returns the next entry to yield, errEnd at the end of the stream,
// or the error to yield last.
func (m *multishot) next() (msEntry, error) {
	t := m.t
	nm := &msNames[m.kind]
	for {
		if m.q.len() > 0 {
			e := m.q.pop()
			switch {
			case e.err != nil:
				return e, opError(nm.op, m.fd, e.err)
			case e.res == -int32(unix.ENOBUFS) && m.pool != nil:
				// The ring ran dry: this loop's buffers are all back, re-arm.
				// Dry again with nothing received in between: the buffers
				// are held by other loops of the pool; let them run first.
				t.ex.stats.msRearms++
				if m.dry++; m.dry > 4 {
					_ = t.Sleep(100 * time.Microsecond) // a cancellation is seen below
				} else if m.dry > 1 {
					t.Yield()
				}
				continue
			case e.res < 0:
				return e, t.opErr(nm.op, m.fd, e.res, false)
			case e.res == 0 && (m.kind == msRecv || m.kind == msRead):
				m.release(&e)
				m.eof = true
				return e, errEnd
			}
			m.dry = 0
			return e, nil
		}
		if m.eof {
			return msEntry{}, errEnd
		}
		if err := t.check(); err != nil {
			return msEntry{}, opError(nm.op, m.fd, err)
		}
		if m.sl == nil {
			if err := m.arm(); err != nil {
				return msEntry{}, err
			}
		}
		m.wait()
	}
}

// stop ends the iteration: it disposes of what is queued, cancels the
// request and waits for its last CQE.
func (m *multishot) stop() {
	m.abort()
	for m.sl != nil {
		m.wait()
	}
	m.done = true
}

// abort is stop without the wait: for a loop body that panicked (its
// coroutine must not switch while it unwinds), and as the first half of
// stop. The request's remaining CQEs are disposed of as they come.
func (m *multishot) abort() {
	if m.done {
		return
	}
	m.parked = false // a coroutine stopped inside wait never comes back to it
	m.ended = true
	if m.holding {
		m.holding = false
		m.release(&m.cur)
	}
	for m.q.len() > 0 {
		e := m.q.pop()
		m.dispose(&e)
	}
	if m.sl != nil {
		m.ex.cancelOp(m.sl)
	}
}

// iterate drives m for one range loop; val turns an entry into the
// yielded value.
func iterate[V any](m *multishot, yield func(V, error) bool, val func(*msEntry) V) {
	defer m.abort() // only does something when the body panicked
	for {
		e, err := m.next()
		if err != nil {
			if err != errEnd {
				m.abort() // before yielding: fds and buffers of later CQEs are not the body's
				var zero V
				yield(zero, err)
			}
			break
		}
		m.cur, m.holding = e, true
		ok := yield(val(&m.cur), nil)
		if m.holding {
			m.holding = false
			m.release(&m.cur)
		}
		if !ok {
			break
		}
	}
	m.stop()
}

func checkPool(fn string, pool *reg.BufPool) error {
	if pool == nil {
		return argError(fn, "pool", "is nil")
	}
	return nil
}

// AcceptMultishot yields the fds of connections accepted on the listening
// socket fd by one multishot accept (IORING_ACCEPT_MULTISHOT, 5.19), with
// SOCK_* flags (SOCK_CLOEXEC is added). Each yielded fd is the loop body's
// to close. The peer address is not reported (every CQE of the request
// would share one sockaddr): use getpeername. See the multishot rules
// above for how the sequence ends.
func (t *T) AcceptMultishot(fd int, flags int) iter.Seq2[int, error] {
	if t.ex.fb != nil {
		return t.fbAcceptMultishot(fd, flags)
	}
	return func(yield func(int, error) bool) {
		m := t.newMultishot(msAccept, fd, nil)
		m.flags = flags
		iterate(m, yield, func(e *msEntry) int { return int(e.res) })
	}
}

// RecvMultishot yields the data received on socket fd by one multishot
// recv (IORING_RECV_MULTISHOT, 6.0) into buffers of pool, with MSG_*
// flags, until the peer shuts down. Each []byte is valid until the loop
// body returns (its buffer then goes back to the ring).
func (t *T) RecvMultishot(fd int, pool *reg.BufPool, flags int) iter.Seq2[[]byte, error] {
	if t.ex.fb != nil {
		return fbPoolIter("recv_multishot", pool)
	}
	return func(yield func([]byte, error) bool) {
		if err := checkPool("RecvMultishot", pool); err != nil {
			yield(nil, err)
			return
		}
		if k := t.ex.takeAllKept(fd); k != nil && !yield(k, nil) {
			return
		}
		m := t.newMultishot(msRecv, fd, pool)
		m.flags = flags
		iterate(m, yield, entryData)
	}
}

// ReadMultishot yields the data read from fd (a pipe, socket or other
// pollable file) by one IORING_OP_READ_MULTISHOT (6.7) into buffers of
// pool, until end of file. Each []byte is valid until the loop body
// returns.
func (t *T) ReadMultishot(fd int, pool *reg.BufPool) iter.Seq2[[]byte, error] {
	if t.ex.fb != nil {
		return fbPoolIter("read_multishot", pool)
	}
	return func(yield func([]byte, error) bool) {
		if err := checkPool("ReadMultishot", pool); err != nil {
			yield(nil, err)
			return
		}
		if k := t.ex.takeAllKept(fd); k != nil && !yield(k, nil) {
			return
		}
		iterate(t.newMultishot(msRead, fd, pool), yield, entryData)
	}
}

// PollMultishot yields the ready events (unix.POLLIN ...) each time fd
// becomes ready for one of events, from one multishot poll
// (IORING_POLL_ADD_MULTI, 5.13). The body must consume the readiness
// (read the data ...) or the poll fires again at once.
func (t *T) PollMultishot(fd int, events uint32) iter.Seq2[uint32, error] {
	if t.ex.fb != nil {
		return t.fbPollMultishot(fd, events)
	}
	return func(yield func(uint32, error) bool) {
		m := t.newMultishot(msPoll, fd, nil)
		m.events = events
		iterate(m, yield, func(e *msEntry) uint32 { return uint32(e.res) })
	}
}

func entryData(e *msEntry) []byte { return e.data }
