package goio

import "sync"

// fdGuard keeps an fd open while calls use it, as Go's internal/poll
// reference count does: begin fails once close has started, and close
// waits for the calls that began before it, so no call ever reaches an fd
// number that was closed and reused.
type fdGuard struct {
	mu     sync.Mutex
	closed bool
	ops    sync.WaitGroup
}

// begin registers a call; false once the fd is closing.
func (g *fdGuard) begin() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.ops.Add(1)
	return true
}

// end ends a call begun with begin.
func (g *fdGuard) end() { g.ops.Done() }

// close marks the fd closing and waits for the calls in progress; false
// when it was already closing (the caller must not close the fd twice).
func (g *fdGuard) close() bool {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return false
	}
	g.closed = true
	g.mu.Unlock()
	g.ops.Wait()
	return true
}
