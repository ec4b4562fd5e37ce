//go:build linux

package poll

import (
	"errors"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// recancelEvery is how often a closing loop re-issues its cancel while
// CQEs are still outstanding.
const recancelEvery = 50 * time.Millisecond

// fatalGiveUp bounds the wait for CQEs after the ring itself failed.
const fatalGiveUp = 2 * time.Second

// Close stops the loop: queued requests fail with uring.ErrClosed,
// everything in flight is cancelled (ASYNC_CANCEL with CANCEL_ANY|ALL),
// every CQE is waited for, so no memory is released under the kernel, then
// the ring is closed and the loop's thread unlocked. Waiting Do callers and
// Go callbacks get uring.ErrClosed; loop-thread handlers get their CQEs
// (-ECANCELED mostly). Close returns the ring's close error, or the error
// that stopped the loop. A second Close returns uring.ErrClosed once the
// first has finished. Called on the loop thread (from a handler), Close
// only starts the shutdown and returns nil.
func (l *Loop) Close() error {
	if l.stop.Swap(true) {
		if !l.onLoop() {
			<-l.done
		}
		return uring.ErrClosed
	}
	if l.onLoop() {
		return nil
	}
	l.wake()
	<-l.done
	return l.closeErr
}

// Done is closed when the loop has exited.
func (l *Loop) Done() <-chan struct{} { return l.done }

// beginClose starts the shutdown (loop thread).
func (l *Loop) beginClose() {
	if l.closing {
		return
	}
	l.closing = true
	l.closeStart = time.Now()
	l.stop.Store(true)
	l.cancelAll()
}

// cancelAll cancels every request in the ring (IORING_ASYNC_CANCEL_ANY,
// 5.19; the CQE of an older kernel's EINVAL switches to cancelling slot by
// slot).
func (l *Loop) cancelAll() {
	l.cancelAt = time.Now()
	if l.cancelEach {
		for i := range l.slots {
			if l.slots[i].gen&1 != 0 { // in flight
				if l.cancelSQE(uint64(token(uint32(i), l.slots[i].gen)), 0) != nil {
					return
				}
			}
		}
		if l.pipeArmed {
			_ = l.cancelSQE(udPipe, 0)
		}
		return
	}
	if l.cancelSQE(0, sys.AsyncCancelAny|sys.AsyncCancelAll) != nil {
		l.cancelAt = time.Time{} // SQ full: retry next round
	}
}

// shutdownStep runs once per loop round while closing; true when every
// CQE is in and the queue is closed.
func (l *Loop) shutdownStep() bool {
	if l.inflight == 0 && !l.pipeArmed && len(l.backlog) == 0 {
		l.closeQueue()
		return true
	}
	if l.fatal != nil && time.Since(l.closeStart) > fatalGiveUp {
		l.closeQueue()
		return true
	}
	if time.Since(l.cancelAt) >= recancelEvery {
		l.cancelAll()
	}
	return false
}

// closeQueue refuses new messages and fails the ones still queued.
func (l *Loop) closeQueue() {
	l.mu.Lock()
	l.qclosed = true
	rest := l.queue
	l.queue = nil
	l.mu.Unlock()
	for _, m := range rest {
		l.handle(m)
	}
}

// finish closes the ring on the loop thread (which also drops its
// registered fd) and releases the waiters of Close.
func (l *Loop) finish() {
	l.final = l.snapshot()
	l.kickMu.Lock()
	l.kickOK = false
	l.kickMu.Unlock()
	err := l.ring.Close()
	l.closePipe()
	if l.efd != nil {
		_ = l.efd.Close() // the ring dropped its reference when it closed
	}
	l.closeErr = l.fatal
	if l.closeErr == nil && err != nil && !errors.Is(err, uring.ErrClosed) {
		l.closeErr = err
	}
	l.owner.Store(0) // the thread is unlocked next and may run anything
	close(l.done)
}
