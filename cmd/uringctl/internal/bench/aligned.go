package bench

import "unsafe"

// alignedBuf returns n bytes of Go memory whose address is a multiple of
// align (a power of two), as O_DIRECT wants.
func alignedBuf(n, align int) []byte {
	b := make([]byte, n+align)
	off := int(uintptr(unsafe.Pointer(&b[0])) & uintptr(align-1))
	if off != 0 {
		off = align - off
	}
	return b[off : off+n : off+n]
}
