package uring

import (
	"errors"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pure-uring/uring/internal/atomicx"
	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sys"
)

// peek returns the CQE at the head (skipping CQE_MIXED padding) and how
// many CQ slots are ready, or nil.
func (r *Ring) peek() (*sys.CQE, uint32) {
	q := &r.cq
	head := *q.head
	// Acquire: pairs with the kernel's smp_store_release of cq.tail after it
	// wrote the CQEs.
	tail := atomic.LoadUint32(q.tail)
	for head != tail {
		c := &q.cqes[(head&q.mask)<<q.shift]
		if !q.mixed || c.Flags&sys.CQEFSkip == 0 {
			return c, tail - head
		}
		head++
		// Release: pairs with the kernel's READ_ONCE of cq.head when it checks
		// for free space.
		atomicx.StoreRelease32(q.head, head)
	}
	return nil, 0
}

// PeekCQE returns the next CQE without waiting, or (nil, nil) when none is
// ready. The CQE lives in the ring: call CQESeen when done with it. When
// CQEs wait in the kernel (overflow, deferred task work, IOPOLL) it enters
// once to flush them. It submits nothing.
func (r *Ring) PeekCQE() (*sys.CQE, error) {
	if r.closed.Load() {
		return nil, ErrClosed
	}
	if c, _ := r.peek(); c != nil {
		return c, nil
	}
	if !r.cqNeedsEnter() {
		return nil, nil
	}
	if err := r.flushCQ(); err != nil {
		return nil, err
	}
	c, _ := r.peek()
	return c, nil
}

// flushCQ enters with GETEVENTS and no wait, moving overflowed CQEs and
// deferred completions into the ring (and polling, on IOPOLL rings).
func (r *Ring) flushCQ() error {
	for {
		_, err := r.enter(0, 0, r.enterFlags|sys.EnterGetEvents)
		if err == nil || !errors.Is(err, syscall.EINTR) {
			if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EBUSY) {
				return nil // the kernel is short of memory for the backlog: reap, then retry
			}
			return err
		}
	}
}

// FlushOverflow moves CQEs the kernel kept aside while the CQ was full
// into the ring.
func (r *Ring) FlushOverflow() error {
	if r.closed.Load() {
		return ErrClosed
	}
	return r.flushCQ()
}

// WaitCQE waits for a CQE and returns it (call CQESeen when done). With
// none ready it sleeps in io_uring_enter, which also submits the SQEs
// GetSQE handed out; with one ready it returns at once and submits
// nothing. On an SQPOLL ring it publishes no SQE: call Submit.
func (r *Ring) WaitCQE() (*sys.CQE, error) { return r.WaitCQEs(1) }

// WaitCQEs waits until at least n CQEs are ready and returns the first.
// It submits as WaitCQE does: with the io_uring_enter it sleeps in, so not
// when n CQEs are ready already, and never on SQPOLL rings.
func (r *Ring) WaitCQEs(n uint32) (*sys.CQE, error) { return r.wait(n, -1, 0) }

// WaitCQETimeout waits up to d for a CQE; ErrTimeout when none arrived. A
// zero d does not block, and submits nothing; otherwise it submits as
// WaitCQE does (only when it sleeps, never on SQPOLL rings).
func (r *Ring) WaitCQETimeout(d time.Duration) (*sys.CQE, error) {
	return r.waitTimeout("WaitCQETimeout", 1, d, 0)
}

// WaitCQEsTimeout waits up to d for n CQEs. With minWait > 0 on kernels
// with IORING_FEAT_MIN_TIMEOUT it returns after minWait as soon as any CQE
// is ready (batching without stalling). ErrTimeout when none arrived. It
// submits as WaitCQETimeout does: when it sleeps, so not with d zero or n
// CQEs ready, and never on SQPOLL rings.
func (r *Ring) WaitCQEsTimeout(n uint32, d, minWait time.Duration) (*sys.CQE, error) {
	return r.waitTimeout("WaitCQEsTimeout", n, d, minWait)
}

// waitTimeout is the timed waits of method fn, their durations checked.
func (r *Ring) waitTimeout(fn string, n uint32, d, minWait time.Duration) (*sys.CQE, error) {
	if err := checkWaitDurations(fn, d, minWait); err != nil {
		return nil, err
	}
	return r.wait(n, d, minWait)
}

// checkWaitDurations refuses a negative timeout or minimum wait.
func checkWaitDurations(fn string, d, minWait time.Duration) error {
	switch {
	case d < 0:
		return argError(fn, "d", "= "+d.String()+" is negative")
	case minWait < 0:
		return argError(fn, "minWait", "= "+minWait.String()+" is negative")
	}
	return nil
}

// wait blocks until n CQE slots are ready, or d passes (d < 0: forever).
func (r *Ring) wait(n uint32, d, minWait time.Duration) (*sys.CQE, error) {
	if r.closed.Load() {
		return nil, ErrClosed
	}
	if n == 0 {
		n = 1
	}
	var deadline time.Time
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	for {
		c, ready := r.peek()
		if c != nil && ready >= n {
			return c, nil
		}
		if d == 0 {
			if c == nil && r.cqNeedsEnter() {
				if err := r.flushCQ(); err != nil {
					return nil, err
				}
				if c, _ = r.peek(); c != nil {
					return c, nil
				}
			}
			if c != nil {
				return c, nil
			}
			return nil, ErrTimeout
		}
		toSubmit := uint32(0)
		if r.flags&sys.SetupSQPoll == 0 {
			toSubmit = r.flushSQ()
		}
		var err error
		if d < 0 {
			_, err = r.enter(toSubmit, n, r.enterFlags|sys.EnterGetEvents)
		} else {
			left := time.Until(deadline)
			if left <= 0 {
				if c != nil {
					return c, nil
				}
				return nil, ErrTimeout
			}
			_, err = r.enterTimeout(toSubmit, n, left, minWait)
		}
		switch {
		case err == nil:
			if minWait > 0 && r.params.Features&sys.FeatMinTimeout != 0 {
				// The kernel returns after minWait once any CQE arrived:
				// that is the batch, fewer than n is the point.
				if c, _ := r.peek(); c != nil {
					return c, nil
				}
			}
		case errors.Is(err, syscall.EINTR):
			// Retry with the remaining time (the loop recomputes it).
		case errors.Is(err, errETIME):
			if c, _ := r.peek(); c != nil {
				return c, nil
			}
			return nil, ErrTimeout
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EBUSY):
			// The kernel could not take more SQEs or flush overflow: reap first.
			if c, _ := r.peek(); c != nil {
				return c, nil
			}
		default:
			return nil, err
		}
		if r.closed.Load() {
			return nil, ErrClosed
		}
	}
}

// enterTimeout waits with IORING_ENTER_EXT_ARG; the timespec and argument
// live in the Ring so that nothing escapes to the heap per wait.
func (r *Ring) enterTimeout(toSubmit, n uint32, left, minWait time.Duration) (int, error) {
	if r.params.Features&sys.FeatExtArg == 0 {
		return 0, extArgError()
	}
	l := r.life
	if err := r.enterOnThread(r.enterFlags); err != nil {
		return 0, err
	}
	defer enterDone(r.enterFlags)
	t, ok := l.beginEnterWait(n)
	if !ok {
		return 0, ErrClosed
	}
	r.waitTs = sys.Timespec{Sec: int64(left / time.Second), Nsec: int64(left % time.Second)}
	r.waitArg = sys.GeteventsArg{Ts: sys.PtrAddr(&r.waitTs)}
	if minWait > 0 && r.params.Features&sys.FeatMinTimeout != 0 {
		r.waitArg.MinWaitUsec = uint32(min(minWait.Microseconds(), 1<<32-1))
	}
	got, err := sys.EnterArg(r.enterFd, toSubmit, n, r.enterFlags|sys.EnterGetEvents|sys.EnterFlags(r.noIOWait.Load()), &r.waitArg)
	l.endEnterWait(t)
	return got, r.issuerError(err)
}

// extArgError is the answer to a wait with a timeout on a kernel without
// IORING_FEAT_EXT_ARG (5.11).
func extArgError() error {
	if err := feature.Feature(sys.FeatExtArg); err != nil {
		return err
	}
	return ErrUnsupported
}

// CQESeen marks c consumed (one slot, or two for a 32-byte CQE on a
// CQE_MIXED ring).
func (r *Ring) CQESeen(c *sys.CQE) {
	if r.cq.mixed && c.Flags&sys.CQEF32 != 0 {
		r.Advance(2)
		return
	}
	r.Advance(1)
}

// Advance marks n CQEs consumed (CQ slots on a CQE_MIXED ring).
func (r *Ring) Advance(n uint32) {
	if r.closed.Load() {
		return
	}
	// Release: our reads of the CQEs finish before the kernel may reuse
	// their slots; pairs with the kernel's READ_ONCE of cq.head.
	atomicx.StoreRelease32(r.cq.head, *r.cq.head+n)
}

// CQReady returns how many CQ slots hold CQEs.
func (r *Ring) CQReady() uint32 {
	if r.closed.Load() {
		return 0
	}
	return atomic.LoadUint32(r.cq.tail) - *r.cq.head
}

// Reap copies up to len(dst) ready CQEs into dst, marks them consumed and
// returns how many. It flushes kernel-held CQEs when the ring is empty. It
// submits nothing.
func (r *Ring) Reap(dst []sys.CQE) int {
	n := r.reap(dst, nil)
	if n == 0 && len(dst) > 0 && !r.closed.Load() && r.cqNeedsEnter() {
		if r.flushCQ() == nil {
			n = r.reap(dst, nil)
		}
	}
	return n
}

// Reap32 is Reap with the 32-byte extras: filled on CQE32 rings, and for
// CQEs flagged IORING_CQE_F_32 on CQE_MIXED rings (zero otherwise).
func (r *Ring) Reap32(dst []sys.CQE32) int {
	n := r.reap(nil, dst)
	if n == 0 && len(dst) > 0 && !r.closed.Load() && r.cqNeedsEnter() {
		if r.flushCQ() == nil {
			n = r.reap(nil, dst)
		}
	}
	return n
}

func (r *Ring) reap(dst []sys.CQE, dst32 []sys.CQE32) int {
	if r.closed.Load() {
		return 0
	}
	q := &r.cq
	head := *q.head
	tail := atomic.LoadUint32(q.tail) // acquire: pairs with the kernel's release of cq.tail
	n := 0
	if dst32 == nil && !q.mixed {
		// The common case: one CQE per entry, copy the 16 bytes we return
		// (the ring's fields in locals: the stores to dst cannot change them).
		cqes, mask, shift := q.cqes, q.mask, q.shift
		if avail := int(tail - head); avail < len(dst) {
			dst = dst[:avail]
		}
		for i := range dst {
			dst[i] = cqes[(head&mask)<<shift]
			head++
		}
		if len(dst) > 0 {
			atomicx.StoreRelease32(q.head, head) // release: pairs with the kernel's READ_ONCE of cq.head
		}
		return len(dst)
	}
	limit := len(dst) + len(dst32)
	for head != tail && n < limit {
		i := (head & q.mask) << q.shift
		c := &q.cqes[i]
		if q.mixed && c.Flags&sys.CQEFSkip != 0 {
			head++
			continue
		}
		big := q.shift == 1 || (q.mixed && c.Flags&sys.CQEF32 != 0)
		if dst32 != nil {
			dst32[n] = sys.CQE32{CQE: *c}
			if big {
				if b := sys.CQE32At(q.cqes, i); b != nil {
					dst32[n].BigCQE = b.BigCQE
				}
			}
		} else {
			dst[n] = *c
		}
		n++
		head++
		if q.mixed && big {
			head++
		}
	}
	// Release: pairs with the kernel's READ_ONCE of cq.head.
	atomicx.StoreRelease32(q.head, head)
	return n
}

// SQFlags returns the kernel's IORING_SQ_* flags word.
func (r *Ring) SQFlags() sys.SQRingFlags {
	if r.closed.Load() {
		return 0
	}
	return sys.SQRingFlags(atomic.LoadUint32(r.sq.flags))
}

// Overflow returns how many CQEs the kernel dropped (only on kernels without
// IORING_FEAT_NODROP; newer ones keep them and set IORING_SQ_CQ_OVERFLOW).
func (r *Ring) Overflow() uint32 {
	if r.closed.Load() {
		return 0
	}
	return atomic.LoadUint32(r.cq.overflow)
}

// Dropped returns how many invalid SQEs the kernel skipped.
func (r *Ring) Dropped() uint32 {
	if r.closed.Load() {
		return 0
	}
	return atomic.LoadUint32(r.sq.dropped)
}

// PeekBatch returns the ready CQEs that lie contiguously in the ring from
// the head (up to the ring's end; the rest follow after Advance), without
// copying; nil when none is ready or the ring is not a plain 16-byte-CQE
// ring (use Reap32 there). The slice is valid until Advance(len(batch)),
// which the caller must call when done. It never enters the kernel.
func (r *Ring) PeekBatch() []sys.CQE {
	q := &r.cq
	if r.closed.Load() || q.shift != 0 || q.mixed {
		return nil
	}
	head := *q.head
	// Acquire: pairs with the kernel's release of cq.tail.
	ready := atomic.LoadUint32(q.tail) - head
	if ready == 0 {
		return nil
	}
	i := head & q.mask
	return q.cqes[i : i+min(ready, q.entries-i)]
}

// CQFlags returns the application-owned IORING_CQ_* flags word.
func (r *Ring) CQFlags() sys.CQRingFlags {
	if r.closed.Load() {
		return 0
	}
	return sys.CQRingFlags(atomic.LoadUint32(r.cq.flags))
}

// SetEventfdEnabled turns the registered eventfd's notifications on or off
// (IORING_CQ_EVENTFD_DISABLED). A loop keeps them off while it is busy
// reaping and turns them on just before it parks on the eventfd, then
// re-checks the CQ so that no completion slips between the two.
func (r *Ring) SetEventfdEnabled(on bool) {
	if r.closed.Load() {
		return
	}
	f := atomic.LoadUint32(r.cq.flags)
	if on {
		f &^= uint32(sys.CQEventfdDisabled)
	} else {
		f |= uint32(sys.CQEventfdDisabled)
	}
	// Full barrier: when turning notifications on, the CQ re-check that
	// follows must not be ordered before this store.
	atomic.StoreUint32(r.cq.flags, f)
}
