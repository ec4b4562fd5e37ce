package uring

import (
	"sync/atomic"

	"github.com/pure-uring/uring/sys"
)

// SubmitAndWait's inline-first path. Many requests complete inside the
// submit itself (a NOP, a read the page cache serves, a send with room in
// the socket buffer, a recv with data queued): the kernel posts their CQEs
// before io_uring_enter returns. For those a submit-only enter, which
// cannot block and so goes without Go's system-call bookkeeping
// (sys.EnterSubmit), already leaves the CQEs the caller waits for, and
// the kernel's wait path is not entered at all. When the CQEs are not
// there the ring enters again to wait, one enter more than a plain
// SubmitAndWait; after such a miss it waits the plain way for the next
// inlineBackoff calls, twice as many after each further miss in a row (up
// to inlineBackoffMax), so a ring whose waits really wait pays the extra
// enter rarely.
const (
	inlineBackoff    = 16
	inlineBackoffMax = 1024
)

// inlineState is the inline-first path's memory: calls left to skip and
// the skip after the next miss. Atomic loads and stores (no read-modify-
// write): a hint that concurrent callers may blur, never a lock.
type inlineState struct {
	skip    atomic.Uint32
	backoff atomic.Uint32
}

// tryInline reports whether this SubmitAndWait of waitNr CQEs, with
// pending SQEs to submit, tries the submit-only enter first.
func (r *Ring) tryInline(pending, waitNr uint32) bool {
	if pending == 0 || waitNr > pending+r.CQReady() || r.flags&(sys.SetupSQPoll|sys.SetupIOPoll) != 0 {
		return false
	}
	if s := r.inline.skip.Load(); s > 0 {
		r.inline.skip.Store(s - 1)
		return false
	}
	return true
}

// inlineHit and inlineMiss record how the submit-only enter did.
func (r *Ring) inlineHit() {
	if r.inline.backoff.Load() != 0 {
		r.inline.backoff.Store(0)
	}
}

func (r *Ring) inlineMiss() {
	b := r.inline.backoff.Load()
	b = min(max(2*b, inlineBackoff), inlineBackoffMax)
	r.inline.backoff.Store(b)
	r.inline.skip.Store(b)
}
