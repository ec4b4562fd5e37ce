package task

import (
	"errors"
	"iter"
	"time"

	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/task/internal/iop"
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
// are the same. On the fallback backend AcceptMultishot and PollMultishot
// loop over Accept and Poll; RecvMultishot and ReadMultishot, whose
// buffers come from a provided-buffer ring, yield an error wrapping
// uring.ErrUnsupported.
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
// (T.Close of the fd drops them). They are kept for the socket or file the
// loop read, not for the fd number: once the fd is closed (by any path)
// and its number names another file, they are dropped, never returned.
// Bytes of a file that cannot be told apart from others (eventfd, timerfd,
// signalfd: one anonymous inode) are dropped rather than kept.

var msNames = [...]struct{ fn, op string }{
	iop.StreamAccept: {"AcceptMultishot", "accept_multishot"},
	iop.StreamRecv:   {"RecvMultishot", "recv_multishot"},
	iop.StreamRead:   {"ReadMultishot", "read_multishot"},
	iop.StreamPoll:   {"PollMultishot", "poll_multishot"},
}

// multishot is the task's side of one iteration (allocated per loop, not
// per item): the backend's stream, and the entry the loop body holds.
type multishot struct {
	t       *T
	s       iop.Stream
	kind    iop.StreamKind
	fd      int
	cur     iop.Entry // the entry the loop body holds
	holding bool
	done    bool // stop finished
	eof     bool
	dry     int // ENOBUFS in a row
}

func (t *T) newMultishot(ss iop.Streams, k iop.StreamKind, fd, flags int, events uint32, pool *reg.BufPool) *multishot {
	return &multishot{t: t, s: ss.Stream(&t.io, k, fd, flags, events, pool), kind: k, fd: fd}
}

// errEnd ends a sequence without an error.
var errEnd = errors.New("task: end of multishot stream")

// wait parks the task until the request posts a CQE (or is interrupted:
// a cancelled context or Close cancels the request, whose last CQE wakes
// it).
func (m *multishot) wait() {
	t := m.t
	m.s.Await(true)
	t.parkKind = parkOp
	t.park()
	t.parkKind = parkNone
	m.s.Await(false)
}

// next returns the next entry to yield, errEnd at the end of the stream,
// or the error to yield last.
func (m *multishot) next() (iop.Entry, error) {
	t := m.t
	nm := &msNames[m.kind]
	for {
		if e, ok := m.s.Pop(); ok {
			switch {
			case e.Err != nil:
				return e, opError(nm.op, m.fd, e.Err)
			case e.Dry:
				// Dry again with nothing received in between: the buffers
				// are held by other loops of the pool; let them run first.
				if m.dry++; m.dry > 4 {
					_ = t.Sleep(100 * time.Microsecond) // a cancellation is seen below
				} else if m.dry > 1 {
					t.Yield()
				}
				continue
			case e.Res < 0:
				return e, t.opErr(nm.op, m.fd, e.Res, false)
			case e.Res == 0 && (m.kind == iop.StreamRecv || m.kind == iop.StreamRead):
				m.s.Release(&e)
				m.eof = true
				return e, errEnd
			}
			m.dry = 0
			return e, nil
		}
		if m.eof {
			return iop.Entry{}, errEnd
		}
		if err := t.check(); err != nil {
			return iop.Entry{}, opError(nm.op, m.fd, err)
		}
		if !m.s.Armed() {
			if err := m.s.Arm(); err != nil {
				if e := (*ArgError)(nil); errors.As(err, &e) {
					return iop.Entry{}, argError(nm.fn, e.Arg, e.Reason)
				}
				return iop.Entry{}, opError(nm.op, m.fd, err)
			}
		}
		m.wait()
	}
}

// stop ends the iteration: it disposes of what is queued, cancels the
// request and waits for its last CQE.
func (m *multishot) stop() {
	m.abort()
	for m.s.Armed() {
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
	if m.holding {
		m.holding = false
		m.s.Release(&m.cur)
	}
	m.s.Abort()
}

// iterate drives m for one range loop; val turns an entry into the
// yielded value.
func iterate[V any](m *multishot, yield func(V, error) bool, val func(*iop.Entry) V) {
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
			m.s.Release(&m.cur)
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
	ss := t.ex.streams
	if ss == nil {
		return func(yield func(int, error) bool) {
			for {
				nfd, _, err := t.Accept(fd, flags)
				if err != nil {
					yield(-1, err)
					return
				}
				if !yield(nfd, nil) {
					return
				}
			}
		}
	}
	return func(yield func(int, error) bool) {
		m := t.newMultishot(ss, iop.StreamAccept, fd, flags, 0, nil)
		iterate(m, yield, func(e *iop.Entry) int { return int(e.Res) })
	}
}

// RecvMultishot yields the data received on socket fd by one multishot
// recv (IORING_RECV_MULTISHOT, 6.0) into buffers of pool, with MSG_*
// flags, until the peer shuts down. Each []byte is valid until the loop
// body returns (its buffer then goes back to the ring).
func (t *T) RecvMultishot(fd int, pool *reg.BufPool, flags int) iter.Seq2[[]byte, error] {
	return t.poolStream(iop.StreamRecv, fd, pool, flags)
}

// ReadMultishot yields the data read from fd (a pipe, socket or other
// pollable file) by one IORING_OP_READ_MULTISHOT (6.7) into buffers of
// pool, until end of file. Each []byte is valid until the loop body
// returns.
func (t *T) ReadMultishot(fd int, pool *reg.BufPool) iter.Seq2[[]byte, error] {
	return t.poolStream(iop.StreamRead, fd, pool, 0)
}

// poolStream is the iterator of a stream whose buffers come from pool:
// what fd has kept comes first.
func (t *T) poolStream(k iop.StreamKind, fd int, pool *reg.BufPool, flags int) iter.Seq2[[]byte, error] {
	nm := &msNames[k]
	ss := t.ex.streams
	if ss == nil {
		return func(yield func([]byte, error) bool) {
			yield(nil, opError(nm.op, -1, iop.NeedsRing("a provided-buffer pool")))
		}
	}
	return func(yield func([]byte, error) bool) {
		if err := checkPool(nm.fn, pool); err != nil {
			yield(nil, err)
			return
		}
		if k := ss.TakeKept(fd); k != nil && !yield(k, nil) {
			return
		}
		iterate(t.newMultishot(ss, k, fd, flags, 0, pool), yield, entryData)
	}
}

// PollMultishot yields the ready events (unix.POLLIN ...) each time fd
// becomes ready for one of events, from one multishot poll
// (IORING_POLL_ADD_MULTI, 5.13). The body must consume the readiness
// (read the data ...) or the poll fires again at once.
func (t *T) PollMultishot(fd int, events uint32) iter.Seq2[uint32, error] {
	ss := t.ex.streams
	if ss == nil {
		return func(yield func(uint32, error) bool) {
			for {
				ev, err := t.Poll(fd, events)
				if err != nil {
					yield(0, err)
					return
				}
				if !yield(ev, nil) {
					return
				}
			}
		}
	}
	return func(yield func(uint32, error) bool) {
		m := t.newMultishot(ss, iop.StreamPoll, fd, 0, events, nil)
		iterate(m, yield, func(e *iop.Entry) uint32 { return uint32(e.Res) })
	}
}

func entryData(e *iop.Entry) []byte { return e.Data }
