//go:build linux

package poll

import (
	"sync"

	"github.com/pure-uring/uring"
)

// Inbox carries messages of type M from any goroutine to the owner of a
// Core: Post appends under a lock, raises the Core's work flag and wakes
// the owner if it sleeps; the owner takes them in order with Take. The
// zero Inbox is unusable: Bind it to its Core first.
type Inbox[M any] struct {
	c      *Core
	mu     sync.Mutex
	queue  []M
	taken  []M
	closed bool
}

// Bind attaches the inbox to c, whose owner takes its messages.
func (in *Inbox[M]) Bind(c *Core) { in.c = c }

// Post hands the owner m from any goroutine and wakes the owner if it
// sleeps; uring.ErrClosed once the inbox is closed.
func (in *Inbox[M]) Post(m M) error {
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return uring.ErrClosed
	}
	in.queue = append(in.queue, m)
	in.c.work.Store(1)
	in.mu.Unlock()
	in.c.Wake()
	return nil
}

// Take returns the messages posted since the last Take, in order (owner
// thread). The slice is the inbox's: it is valid until the next Take, and
// the owner should clear what it no longer needs.
func (in *Inbox[M]) Take() []M {
	if in.c.work.Load() == 0 {
		return nil
	}
	in.c.work.Store(0) // before the queue is read: a later post raises it again
	clear(in.taken)
	in.mu.Lock()
	in.taken, in.queue = in.queue, in.taken[:0]
	in.mu.Unlock()
	return in.taken
}

// Close refuses further posts and returns what was still queued (owner
// thread).
func (in *Inbox[M]) Close() []M {
	in.mu.Lock()
	in.closed = true
	rest := in.queue
	in.queue = nil
	in.mu.Unlock()
	return rest
}
