package task

import "sync"

// sockRegistry holds the goroutine-side sockets and files whose waits are
// Go's own (the netpoller): the executor's Close closes them all, which
// ends those waits, and a socket registered after that is refused.
type sockRegistry struct {
	mu    sync.Mutex
	socks map[*fbSock]struct{}
	done  bool // closeAll ran
}

// add registers s; false once the executor is closing (the caller closes
// what s holds).
func (r *sockRegistry) add(s *fbSock) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return false
	}
	if r.socks == nil {
		r.socks = make(map[*fbSock]struct{})
	}
	r.socks[s] = struct{}{}
	return true
}

// drop forgets s (it was closed by its owner).
func (r *sockRegistry) drop(s *fbSock) {
	r.mu.Lock()
	delete(r.socks, s)
	r.mu.Unlock()
}

// closeAll closes every registered socket's netpoller file (or object)
// and refuses new ones.
func (r *sockRegistry) closeAll() {
	r.mu.Lock()
	r.done = true
	socks := r.socks
	r.socks = nil
	r.mu.Unlock()
	for s := range socks {
		_ = s.f.Close()
	}
}
