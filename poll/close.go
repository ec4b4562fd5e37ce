//go:build linux

package poll

import (
	"time"

	"github.com/pure-uring/uring"
)

// recancelEvery is how often a closing loop re-issues its cancel while
// CQEs are still outstanding.
const recancelEvery = 50 * time.Millisecond

// fatalGiveUp bounds the wait for CQEs after the ring itself failed.
const fatalGiveUp = 2 * time.Second

// Close stops the loop: queued requests fail with uring.ErrClosed,
// everything in flight is cancelled (ASYNC_CANCEL with CANCEL_ANY|ALL, or
// one by one before 5.19), every CQE is waited for, so no memory is
// released under the kernel, then the ring is closed and the loop's thread
// unlocked. Waiting Do callers and Go callbacks get uring.ErrClosed;
// loop-thread handlers get their CQEs (-ECANCELED mostly). Close returns
// the ring's close error, or the error that stopped the loop (a
// *HandlerError when a handler panicked). A second Close returns
// uring.ErrClosed once the first has finished. Called on the loop thread
// (from a handler), Close only starts the shutdown and returns nil.
func (l *Loop) Close() error {
	first := !l.closed.Swap(true)
	l.c.Stop() // the loop may have stopped itself already (a handler's panic)
	if !l.onLoop() {
		<-l.done
	}
	switch {
	case !first:
		return uring.ErrClosed
	case l.onLoop():
		return nil
	}
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
	l.c.Stop()
	l.cancelAll()
}

// cancelAll cancels every request in the ring.
func (l *Loop) cancelAll() {
	l.cancelAt = time.Now()
	l.st.Cancels++
	if !l.c.CancelAll() {
		l.cancelAt = time.Time{} // SQ full: retry next round
	}
}

// shutdownStep runs once per loop round while closing; true when every
// CQE is in and the queue is closed.
func (l *Loop) shutdownStep() bool {
	if l.c.Quiet() && len(l.backlog) == 0 {
		l.closeQueue()
		return true
	}
	if _, handler := l.fatal.(*HandlerError); l.fatal != nil && !handler && time.Since(l.closeStart) > fatalGiveUp {
		// The ring failed: its CQEs may never come.
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
	for _, m := range l.in.Close() {
		l.handle(m)
	}
}

// finish closes the ring on the loop thread (which also drops its
// registered fd) and releases the waiters of Close.
func (l *Loop) finish() {
	l.final = l.snapshot()
	l.closeQueue() // posts that raced the end
	err := l.c.closeRing()
	l.closeErr = l.fatal
	if l.closeErr == nil {
		l.closeErr = err
	}
	l.owner.Store(0) // the thread is unlocked next and may run anything
	close(l.done)
}
