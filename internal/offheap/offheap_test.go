package offheap

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

type pair struct {
	A uint64
	B uint32
	C uint16
	D uint16
}

func TestView(t *testing.T) {
	mem := make([]byte, 64+8)
	// Align the base to 8 bytes for the test.
	base := 0
	for uintptr(unsafe.Pointer(&mem[base]))%8 != 0 {
		base++
	}
	mem = mem[base : base+64]
	v := View[pair](mem, 0, 4)
	require.Len(t, v, 4)
	v[1].C = 0x1234
	require.Equal(t, byte(0x34), mem[16+12])
	require.Nil(t, View[pair](mem, 0, 5), "does not fit")
	require.Nil(t, View[pair](mem, 1, 1), "misaligned")
	require.Nil(t, View[pair](mem, 0, 0), "n = 0")
	require.Nil(t, View[pair](mem, -1, 1), "negative offset")
	require.Nil(t, View[pair](mem, 65, 1), "offset past the end")
	require.Len(t, View[pair](mem, 48, 1), 1)
}
