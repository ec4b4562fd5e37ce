//go:build linux

package sqe

import "github.com/pure-uring/uring/sys"

// The kernel keeps using the memory behind an address after the builder
// returns, so that memory must live on the heap: the Go runtime moves
// goroutine stacks, and an address taken with sys.SliceAddr or sys.PtrAddr
// does not by itself make a value escape. addrOf and ptrOf store their
// argument where escape analysis must assume it outlives the call (a branch
// never taken at run time), so the compiler heap-allocates whatever a
// caller passes to a builder. They cost nothing at run time.

var escape struct {
	on bool
	v  any
}

// addrOf returns the address of s[0] (0 when empty), forcing s to the heap.
func addrOf[T any](s []T) uint64 {
	if escape.on {
		escape.v = s
	}
	return sys.SliceAddr(s)
}

// ptrOf returns the address of *p (0 for nil), forcing *p to the heap.
func ptrOf[T any](p *T) uint64 {
	if escape.on {
		escape.v = p
	}
	return sys.PtrAddr(p)
}
