//go:build linux

package poll

import "github.com/pure-uring/uring"

// enqueue appends m to the inbox; uring.ErrClosed once it is closed.
func (c *Core[M]) enqueue(m M) error {
	c.mu.Lock()
	if c.qclosed {
		c.mu.Unlock()
		return uring.ErrClosed
	}
	c.queue = append(c.queue, m)
	c.work.Store(1)
	c.mu.Unlock()
	return nil
}

// Take returns the messages posted since the last Take, in order (owner
// thread). The slice is the Core's: it is valid until the next Take, and
// the owner should clear what it no longer needs.
func (c *Core[M]) Take() []M {
	if c.work.Load() == 0 {
		return nil
	}
	c.work.Store(0) // before the queue is read: a later post raises it again
	clear(c.taken)
	c.mu.Lock()
	c.taken, c.queue = c.queue, c.taken[:0]
	c.mu.Unlock()
	return c.taken
}

// CloseInbox refuses further posts and returns what was still queued
// (owner thread).
func (c *Core[M]) CloseInbox() []M {
	c.mu.Lock()
	c.qclosed = true
	rest := c.queue
	c.queue = nil
	c.mu.Unlock()
	return rest
}
