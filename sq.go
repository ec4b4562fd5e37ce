package uring

import (
	"errors"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pure-uring/uring/internal/atomicx"
	"github.com/pure-uring/uring/sys"
)

// GetSQE hands out the next SQE, zeroed, or ErrSQFull when every SQE is
// handed out and not yet consumed by the kernel. It publishes nothing:
// Submit does. The request is the submitting thread's (see the package
// overview): keep that thread alive until its CQE.
func (r *Ring) GetSQE() (*sys.SQE, error) {
	if r.closed.Load() {
		return nil, ErrClosed
	}
	q := &r.sq
	tail := q.sqeTail
	// Acquire: pairs with the kernel's smp_store_release of sq.head once it
	// has read the SQEs (the SQPOLL thread does so concurrently).
	if tail-atomic.LoadUint32(q.head) >= q.entries {
		return nil, ErrSQFull
	}
	s := &q.sqes[(tail&q.mask)<<q.shift] // shift 1: a 128-byte SQE is two slots
	q.sqeTail = tail + 1
	*s = sys.SQE{}
	return s, nil
}

// GetSQEs hands out up to n SQEs at once, zeroed and contiguous in the
// SQ: one space check and one clear for the batch, where n GetSQE calls
// make n of each. It returns fewer than n when fewer are free or when the
// batch reaches the end of the SQ array (call it again for the rest), and
// ErrSQFull when none is free. The SQEs are published by Submit, as
// GetSQE's are; each request is the submitting thread's. For 128-byte
// SQEs use GetSQE128.
func (r *Ring) GetSQEs(n uint32) ([]sys.SQE, error) {
	if r.closed.Load() {
		return nil, ErrClosed
	}
	q := &r.sq
	if q.shift != 0 {
		return nil, &OptionError{Option: "GetSQEs", Reason: "the ring has 128-byte SQEs (WithSQE128): use GetSQE128"}
	}
	tail := q.sqeTail
	// Acquire: pairs with the kernel's smp_store_release of sq.head once it
	// has read the SQEs (the SQPOLL thread does so concurrently).
	free := q.entries - (tail - atomic.LoadUint32(q.head))
	if free == 0 {
		return nil, ErrSQFull
	}
	i := tail & q.mask
	n = min(n, free, q.entries-i)
	batch := q.sqes[i : i+n]
	clear(batch)
	q.sqeTail = tail + n
	return batch, nil
}

// GetSQE128 is GetSQE for WithSQE128 rings: the whole 128 bytes are zeroed.
func (r *Ring) GetSQE128() (*sys.SQE128, error) {
	if r.sq.shift == 0 {
		return nil, &OptionError{Option: "GetSQE128", Reason: "the ring was not created WithSQE128"}
	}
	if _, err := r.GetSQE(); err != nil { // zeroes the first 64 bytes
		return nil, err
	}
	big := sys.SQE128At(r.sq.sqes, ((r.sq.sqeTail-1)&r.sq.mask)<<1)
	big.Cmd = [64]byte{}
	return big, nil
}

// SQSpace returns how many SQEs GetSQE can still hand out.
func (r *Ring) SQSpace() uint32 {
	return r.sq.entries - (r.sq.sqeTail - atomic.LoadUint32(r.sq.head))
}

// SQReady returns how many SQEs are handed out or published but not yet
// consumed by the kernel.
func (r *Ring) SQReady() uint32 { return r.sq.sqeTail - atomic.LoadUint32(r.sq.head) }

// flushSQ publishes the SQEs handed out so far and returns how many the
// kernel has yet to consume.
func (r *Ring) flushSQ() uint32 {
	q := &r.sq
	tail := q.sqeTail
	if q.sqeHead != tail {
		q.sqeHead = tail
		// Release: the SQE contents become visible before the new tail; pairs
		// with the kernel's smp_load_acquire of sq.tail.
		if r.flags&sys.SetupSQPoll != 0 {
			// Full barrier: sqNeedsWakeup's load must not pass this store.
			atomicx.StoreFull32(q.tail, tail)
		} else {
			atomicx.StoreRelease32(q.tail, tail)
		}
	}
	// Acquire: pairs with the kernel's smp_store_release of sq.head.
	return tail - atomic.LoadUint32(q.head)
}

// sqNeedsWakeup reports whether the SQPOLL thread sleeps. The tail store in
// flushSQ is a full barrier (XCHG on amd64, DMB on arm64), so this load
// cannot be reordered before it; pairs with the SQ thread setting
// IORING_SQ_NEED_WAKEUP and then re-checking the tail.
func (r *Ring) sqNeedsWakeup() bool {
	return atomic.LoadUint32(r.sq.flags)&uint32(sys.SQNeedWakeup) != 0
}

// cqNeedsEnter reports whether CQEs wait in the kernel: an overflow backlog,
// deferred task work, or an IOPOLL ring (which completes only when polled).
func (r *Ring) cqNeedsEnter() bool {
	return atomic.LoadUint32(r.sq.flags)&uint32(sys.SQCQOverflow|sys.SQTaskrun) != 0 ||
		r.flags&sys.SetupIOPoll != 0
}

// Submit publishes the SQEs handed out so far and tells the kernel (or,
// with SQPOLL, wakes its thread only if it sleeps). It returns how many SQEs
// the kernel consumed; fewer than handed out means one failed to prepare
// (its CQE says why) and the rest wait for the next Submit.
//
// The requests become the calling thread's: if it exits before their
// CQEs (a goroutine that returns while locked to it ends it), the kernel
// cancels them. A CQE of -ECANCELED that nobody asked for means the
// request never ran; see the package overview and reg.StartIOWorkers.
func (r *Ring) Submit() (int, error) { return r.submit(0) }

// Publish publishes the SQEs handed out so far (the SQ tail), without a
// system call, and returns how many the kernel has not consumed yet: the
// first half of Submit. With EnterWait it lets goroutines share a ring:
// each hands out, fills and publishes its SQEs under a lock of its own,
// and enters without it.
func (r *Ring) Publish() uint32 {
	if r.closed.Load() {
		return 0
	}
	return r.flushSQ()
}

// EnterWait makes one io_uring_enter(2): it submits up to toSubmit SQEs
// already published (Publish) and, when minComplete > 0, waits until that
// many CQEs are ready (GETEVENTS), retrying on EINTR. It reads and writes
// no queue state of the Ring, so one goroutine may wait here while others
// hand out and publish SQEs (under their lock) and submit them with their
// own EnterWait; reap with PeekBatch and Advance, or Reap, from one
// goroutine at a time. Close ends the wait (ErrClosed). Not for SQPOLL
// rings, whose SQ thread submits.
func (r *Ring) EnterWait(toSubmit, minComplete uint32) (int, error) {
	if r.closed.Load() {
		return 0, ErrClosed
	}
	flags := r.enterFlags
	if minComplete > 0 {
		flags |= sys.EnterGetEvents
	}
	for {
		n, err := r.enter(toSubmit, minComplete, flags)
		if err == nil || !errors.Is(err, syscall.EINTR) {
			return n, err
		}
		if n > 0 {
			toSubmit -= min(toSubmit, uint32(n))
		}
	}
}

// SubmitAndWait submits as Submit does, also when n CQEs are ready
// already, and waits until at least n CQEs are ready. It submits first
// without waiting and enters again to wait only when fewer than n CQEs
// completed inside the submit; after such a miss the next 16 calls (up to
// 1024 after further misses in a row) submit and wait in one enter, so
// waits that really wait rarely pay the second enter.
func (r *Ring) SubmitAndWait(n uint32) (int, error) { return r.submit(n) }

func (r *Ring) submit(waitNr uint32) (int, error) {
	if r.closed.Load() {
		return 0, ErrClosed
	}
	pending := r.flushSQ()
	flags := r.enterFlags
	enter := false
	if r.flags&sys.SetupSQPoll != 0 {
		if pending > 0 && r.sqNeedsWakeup() {
			flags |= sys.EnterSQWakeup
			enter = true
		}
	} else {
		enter = pending > 0
	}
	if waitNr > 0 || r.cqNeedsEnter() {
		flags |= sys.EnterGetEvents
		enter = true
	}
	if !enter {
		return int(pending), nil
	}
	toSubmit := pending
	if r.flags&sys.SetupSQPoll != 0 {
		toSubmit = 0
	}
	total := 0
	if waitNr > 0 && r.tryInline(pending, waitNr) {
		// Submit only; wait below only if the CQEs did not come inline.
		n, err := r.enter(pending, 0, r.enterFlags)
		if n > 0 {
			total = n
		}
		if err == nil && r.CQReady() >= waitNr {
			r.inlineHit()
			return total, nil
		}
		if err == nil {
			r.inlineMiss()
		}
		toSubmit = r.flushSQ() // what the kernel did not take (an error, a failed prep)
	}
	for {
		n, err := r.enter(toSubmit, waitNr, flags)
		if n > 0 {
			total += n
		}
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return total, err
		}
		if err == nil && (waitNr == 0 || r.CQReady() >= waitNr) {
			break
		}
		// Interrupted (Go's own signals do this; when it had submitted
		// something the kernel reports the count, not EINTR, and stops
		// waiting): submit what is left and wait again; CQEs that already
		// arrived count.
		if toSubmit > 0 {
			toSubmit = r.flushSQ()
		}
		if waitNr > 0 && r.CQReady() >= waitNr {
			waitNr = 0
			flags &^= sys.EnterGetEvents
			if toSubmit == 0 {
				break
			}
		}
	}
	if r.flags&sys.SetupSQPoll != 0 {
		return int(pending), nil
	}
	return total, nil
}

// SubmitAndWaitTimeout submits and waits up to d for n CQEs; ErrTimeout
// when fewer arrived. It returns how many SQEs were submitted.
func (r *Ring) SubmitAndWaitTimeout(n uint32, d time.Duration) (int, error) {
	if err := checkWaitDurations("SubmitAndWaitTimeout", d, 0); err != nil {
		return 0, err // before the submit: nothing is lost
	}
	submitted, err := r.Submit()
	if err != nil {
		return submitted, err
	}
	_, err = r.waitTimeout("SubmitAndWaitTimeout", n, d, 0)
	return submitted, err
}

// enter makes one io_uring_enter(2) under a reference that Close waits
// for. One that may sleep (a wait, SQ_WAIT) is taken so that Close can end
// it (beginEnterWait, beginWait); one that cannot, only counts.
func (r *Ring) enter(toSubmit, minComplete uint32, flags sys.EnterFlags) (int, error) {
	l := r.life
	if err := r.enterOnThread(flags); err != nil {
		return 0, err
	}
	defer enterDone(flags)
	if minComplete == 0 && flags&sys.EnterSQWait == 0 {
		if !l.acquire() {
			return 0, ErrClosed
		}
		n, err := sys.EnterSubmit(r.enterFd, toSubmit, flags)
		l.releaseRef()
		return n, r.issuerError(err)
	}
	if flags&sys.EnterGetEvents != 0 {
		flags |= sys.EnterFlags(r.noIOWait.Load()) // SetIOWait(false)
	}
	var t waitTicket
	var ok bool
	if flags&sys.EnterSQWait != 0 {
		// No CQE ends a wait for SQ space: record the thread.
		var tid int32
		tid, ok = l.beginWait()
		t = waitTicket(tid)
	} else {
		t, ok = l.beginEnterWait(minComplete)
	}
	if !ok {
		return 0, ErrClosed
	}
	n, err := sys.Enter(r.enterFd, toSubmit, minComplete, flags)
	l.endEnterWait(t)
	return n, r.issuerError(err)
}

// WaitSQSpace blocks until the kernel has consumed at least one SQE, for
// SQPOLL rings whose SQ is full (IORING_ENTER_SQ_WAIT); on other rings the
// SQ drains on Submit, so it returns at once.
func (r *Ring) WaitSQSpace() error {
	if r.closed.Load() {
		return ErrClosed
	}
	if r.flags&sys.SetupSQPoll == 0 {
		return nil
	}
	for r.SQSpace() == 0 {
		flags := r.enterFlags | sys.EnterSQWait
		if r.sqNeedsWakeup() {
			flags |= sys.EnterSQWakeup // a sleeping SQ thread would never make room
		}
		_, err := r.enter(0, 0, flags)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
	return nil
}
