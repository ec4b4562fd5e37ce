package fdguard

import (
	"sync"
	"sync/atomic"
)

// Guard counts the calls using an fd, so that Close can wait for them
// before the fd goes (the kernel would otherwise read or write a number
// that a later open may reuse). The count and the closed bit share one
// word, so a call that starts after Close began sees it; Acquire and
// Release are one atomic add each. The zero Guard is open.
type Guard struct {
	state atomic.Int64  // calls in progress | closedBit
	mu    sync.Mutex    // one Close at a time
	done  chan struct{} // set by close before closedBit; closed by the last release
	// A refused acquire counts in and out too, so more than one release
	// can see the count reach zero after Close: the first closes done.
	signalled atomic.Bool
}

const closedBit = 1 << 62

// Acquire counts a call in; false once Close began (the call must not
// touch the fd).
func (g *Guard) Acquire() bool {
	if g.state.Add(1)&closedBit != 0 {
		g.Release()
		return false
	}
	return true
}

// Release counts a call out, waking Close after the last.
func (g *Guard) Release() {
	if g.state.Add(-1) == closedBit && g.signalled.CompareAndSwap(false, true) {
		close(g.done)
	}
}

// Close marks the fd closing and waits until the calls in progress were
// released; false when it was closing already (the caller must not close
// the fd twice).
func (g *Guard) Close() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state.Load()&closedBit != 0 {
		return false
	}
	g.done = make(chan struct{}) // published by the Or below
	if g.state.Or(closedBit) != 0 {
		<-g.done
	}
	return true
}
