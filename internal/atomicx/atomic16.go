package atomicx

import (
	"sync/atomic"
	"unsafe"
)

// bigEndian is true on big-endian machines, where the low half of a 32-bit
// word lies at the higher address.
var bigEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 0
}()

// word returns the aligned 32-bit word holding *p and the bit shift of *p
// inside it. p must be 2-byte aligned.
func word(p *uint16) (*uint32, uint) {
	a := uintptr(unsafe.Pointer(p))
	w := (*uint32)(unsafe.Add(unsafe.Pointer(p), -int(a&3)))
	hi := a&2 != 0
	if bigEndian {
		hi = !hi
	}
	if hi {
		return w, 16
	}
	return w, 0
}

// StoreRelease16 stores v into *p atomically, with (at least) release
// ordering: every write before it is visible to a reader that loads the new
// value with acquire ordering. sync/atomic has no 16-bit store, so the
// containing aligned 32-bit word is updated with a compare-and-swap, leaving
// the other half as it is. p must be 2-byte aligned.
func StoreRelease16(p *uint16, v uint16) {
	w, shift := word(p)
	for {
		old := atomic.LoadUint32(w)
		nw := old&^(0xffff<<shift) | uint32(v)<<shift
		if atomic.CompareAndSwapUint32(w, old, nw) {
			return
		}
	}
}

// LoadAcquire16 loads *p atomically, with (at least) acquire ordering.
// p must be 2-byte aligned.
func LoadAcquire16(p *uint16) uint16 {
	w, shift := word(p)
	return uint16(atomic.LoadUint32(w) >> shift)
}
