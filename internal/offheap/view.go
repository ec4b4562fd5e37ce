package offheap

import "unsafe"

// View returns n values of T laid out at mem[off:], or nil when n is not
// positive, the values do not fit in mem, or mem[off:] is not aligned for T.
func View[T any](mem []byte, off, n int) []T {
	var zero T
	size, align := int(unsafe.Sizeof(zero)), int(unsafe.Alignof(zero))
	if n <= 0 || off < 0 || size == 0 || off > len(mem) || n > (len(mem)-off)/size {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(mem[off:]))
	if uintptr(p)%uintptr(align) != 0 {
		return nil
	}
	return unsafe.Slice((*T)(p), n)
}
