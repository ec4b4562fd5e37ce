package fileio

import (
	"sync"
	"sync/atomic"
)

// guard counts a file's ring operations in flight, so that Close can wait
// for them before the fd goes: the kernel would otherwise read or write a
// number that a later open may reuse. The count and the closed bit share
// one word, so a call that starts after Close began sees it.
type guard struct {
	state atomic.Int64  // operations in flight | closedBit
	mu    sync.Mutex    // one Close at a time
	done  chan struct{} // set by close before closedBit; closed by the last release
	// A refused acquire counts in and out too, so more than one release
	// can see the count reach zero after Close: the first closes done.
	signalled atomic.Bool
}

const closedBit = 1 << 62

// acquire counts one operation in; false once Close began.
func (g *guard) acquire() bool {
	if g.state.Add(1)&closedBit != 0 {
		g.release()
		return false
	}
	return true
}

// release counts one operation out, waking Close after the last.
func (g *guard) release() {
	if g.state.Add(-1) == closedBit && g.signalled.CompareAndSwap(false, true) {
		close(g.done)
	}
}

// close marks the file closed and waits until its operations in flight
// were released; false when it was closed already.
func (g *guard) close() bool {
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
