package sys

import "unsafe"

// The kernel uses memory behind an address after the call that passed it
// returns, so that memory must not live on a goroutine stack, which the
// runtime moves. Converting a pointer to an integer does not make the value
// escape by itself: SliceAddr, PtrAddr and StringAddr store their argument
// where escape analysis must assume it outlives the call (a branch never
// taken at run time), so whatever a caller passes is heap-allocated by the
// compiler. They cost nothing at run time.
var escape struct {
	on bool
	v  any
}

// SliceAddr returns the address of s[0] for the kernel, or 0 when s is
// empty. The caller keeps s reachable (and pinned, if it could move) until
// the kernel is done with it.
func SliceAddr[T any](s []T) uint64 {
	if escape.on {
		escape.v = s
	}
	if len(s) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(s))))
}

// PtrAddr returns the address of *p for the kernel, or 0 for nil. The caller
// keeps *p reachable until the kernel is done with it.
func PtrAddr[T any](p *T) uint64 {
	if escape.on {
		escape.v = p
	}
	return uint64(uintptr(unsafe.Pointer(p)))
}

// StringAddr returns the address of the bytes of s, or 0 when s is empty.
// The caller keeps s reachable until the kernel is done with it.
func StringAddr(s string) uint64 {
	if escape.on {
		escape.v = s
	}
	if len(s) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.StringData(s))))
}

// SizeOf reports the size of T in bytes, for argument-size fields.
func SizeOf[T any]() uintptr {
	var v T
	return unsafe.Sizeof(v)
}

// fits reports whether [off, off+size) lies inside mem and the address of
// mem[off] is aligned (the base too: a view of a misaligned slice is
// misaligned, and atomics on it fault on some architectures).
func fits(mem []byte, off, size, align uint64) bool {
	if off > uint64(len(mem)) || size > uint64(len(mem))-off {
		return false
	}
	return (SliceAddr(mem)+off)%align == 0
}

// Uint32At returns a pointer to the 32-bit word at mem[off:], or nil when the
// word does not fit in mem or is misaligned.
func Uint32At(mem []byte, off uint32) *uint32 {
	if !fits(mem, uint64(off), 4, 4) {
		return nil
	}
	return (*uint32)(unsafe.Pointer(&mem[off]))
}

// Uint32sAt views n 32-bit words at mem[off:], or nil when they do not fit.
func Uint32sAt(mem []byte, off, n uint32) []uint32 {
	if n == 0 || !fits(mem, uint64(off), uint64(n)*4, 4) {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&mem[off])), n)
}

// SQEsAt views n SQEs at mem[off:], or nil when they do not fit.
func SQEsAt(mem []byte, off, n uint32) []SQE {
	if n == 0 || !fits(mem, uint64(off), uint64(n)*64, 8) {
		return nil
	}
	return unsafe.Slice((*SQE)(unsafe.Pointer(&mem[off])), n)
}

// CQEsAt views n 16-byte CQE slots at mem[off:], or nil when they do not
// fit. On CQE32 rings each CQE spans two slots.
func CQEsAt(mem []byte, off, n uint32) []CQE {
	if n == 0 || !fits(mem, uint64(off), uint64(n)*16, 8) {
		return nil
	}
	return unsafe.Slice((*CQE)(unsafe.Pointer(&mem[off])), n)
}

// BufsAt views n provided-buffer ring entries at mem[0:], or nil when they
// do not fit.
func BufsAt(mem []byte, n uint32) []Buf {
	if n == 0 || !fits(mem, 0, uint64(n)*16, 8) {
		return nil
	}
	return unsafe.Slice((*Buf)(unsafe.Pointer(&mem[0])), n)
}

// BytesAtAddr views n bytes at a kernel-visible address inside mem, or nil
// when [addr, addr+n) is not inside mem. It is how a provided buffer chosen
// by the kernel is found again in the memory that holds it.
func BytesAtAddr(mem []byte, addr uint64, n uint32) []byte {
	base := SliceAddr(mem)
	if base == 0 || addr < base || !fits(mem, addr-base, uint64(n), 1) {
		return nil
	}
	return mem[addr-base : addr-base+uint64(n) : addr-base+uint64(n)]
}

// SQE128At returns slots[i] and slots[i+1] as one 128-byte SQE, or nil when
// slots[i+1] does not exist.
func SQE128At(slots []SQE, i uint32) *SQE128 {
	if uint64(i)+1 >= uint64(len(slots)) {
		return nil
	}
	return (*SQE128)(unsafe.Pointer(&slots[i]))
}

// CQE32At returns slots[i] and slots[i+1] as one 32-byte CQE, or nil when
// slots[i+1] does not exist.
func CQE32At(slots []CQE, i uint32) *CQE32 {
	if uint64(i)+1 >= uint64(len(slots)) {
		return nil
	}
	return (*CQE32)(unsafe.Pointer(&slots[i]))
}
