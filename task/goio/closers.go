package goio

import (
	"io"
	"sync"
)

// closers holds the goroutine-side sockets and files of one executor
// whose waits are Go's own (the netpoller's, or off Linux those of Go's
// net and os objects): the executor's Close closes them all (an AtClose
// function), which ends those waits as the executor's own operations
// end, and one added after that is refused.
type closers struct {
	mu   sync.Mutex
	set  map[io.Closer]struct{}
	done bool // closeAll ran
}

// add registers c; false once the executor is closing (the caller closes
// c).
func (r *closers) add(c io.Closer) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return false
	}
	if r.set == nil {
		r.set = make(map[io.Closer]struct{})
	}
	r.set[c] = struct{}{}
	return true
}

// isDone reports whether closeAll ran: the executor is closing.
func (r *closers) isDone() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done
}

// drop forgets c (it was closed by its owner).
func (r *closers) drop(c io.Closer) {
	r.mu.Lock()
	delete(r.set, c)
	r.mu.Unlock()
}

// closeAll closes every registered object and refuses new ones.
func (r *closers) closeAll() {
	r.mu.Lock()
	r.done = true
	set := r.set
	r.set = nil
	r.mu.Unlock()
	for c := range set {
		_ = c.Close()
	}
}
