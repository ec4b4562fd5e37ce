package poll

import (
	"sync"

	"github.com/pure-uring/uring"
)

// Waker is the owner side an Inbox signals: a Core, or the owner of any
// other completion mechanism with the same protocol (the task layer's
// fallback without io_uring). RaiseWork sets the owner's work flag, Wake
// wakes the owner if it sleeps (after RaiseWork: the owner checks the
// flag after it stores its sleep state), and TakeWork lowers the flag and
// reports whether it was up.
type Waker interface {
	RaiseWork()
	Wake()
	TakeWork() bool
}

// Inbox carries messages of type M from any goroutine to the owner of a
// Waker (a Core): Post appends under a lock, raises the owner's work flag
// and wakes the owner if it sleeps; the owner takes them in order with
// Take. The zero Inbox is unusable: Bind it first.
type Inbox[M any] struct {
	c      Waker
	mu     sync.Mutex
	queue  []M
	taken  []M
	closed bool
}

// Bind attaches the inbox to c, whose owner takes its messages.
func (in *Inbox[M]) Bind(c Waker) { in.c = c }

// Post hands the owner m from any goroutine and wakes the owner if it
// sleeps; uring.ErrClosed once the inbox is closed.
func (in *Inbox[M]) Post(m M) error {
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return uring.ErrClosed
	}
	in.queue = append(in.queue, m)
	in.c.RaiseWork()
	in.mu.Unlock()
	in.c.Wake()
	return nil
}

// Take returns the messages posted since the last Take, in order (owner
// thread). The slice is the inbox's: it is valid until the next Take, and
// the owner should clear what it no longer needs.
func (in *Inbox[M]) Take() []M {
	if !in.c.TakeWork() { // lowered before the queue is read: a later post raises it again
		return nil
	}
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
