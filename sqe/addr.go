//go:build linux

package sqe

import "github.com/pure-uring/uring/sys"

// addrOf and ptrOf take addresses for the kernel. sys.SliceAddr and
// sys.PtrAddr make their argument escape to the heap, so memory a caller
// passes to a builder never lives on a goroutine stack the runtime moves.

// addrOf returns the address of s[0] (0 when empty).
func addrOf[T any](s []T) uint64 { return sys.SliceAddr(s) }

// ptrOf returns the address of *p (0 for nil).
func ptrOf[T any](p *T) uint64 { return sys.PtrAddr(p) }
