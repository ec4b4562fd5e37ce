package sys

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// alignedBytes returns n zeroed bytes starting on an 8-byte boundary.
func alignedBytes(n int) []byte {
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}

func TestUint32At(t *testing.T) {
	mem := alignedBytes(16)
	p := Uint32At(mem, 12)
	require.NotNil(t, p)
	*p = 0xdeadbeef
	require.Equal(t, []byte{0xef, 0xbe, 0xad, 0xde}, mem[12:16], "little-endian on every supported arch")

	require.Nil(t, Uint32At(mem, 13), "misaligned offset")
	require.Nil(t, Uint32At(mem, 14), "misaligned offset")
	require.Nil(t, Uint32At(mem, 16), "past the end")
	require.Nil(t, Uint32At(mem, 1<<31), "far past the end")
	require.Nil(t, Uint32At(mem[1:], 0), "misaligned base")
	require.NotNil(t, Uint32At(mem[1:], 3), "misaligned base, aligned address")
	require.Nil(t, Uint32At(nil, 0), "nil memory")
	require.Nil(t, Uint32At(mem[:3], 0), "too short")
}

func TestUint32sAt(t *testing.T) {
	mem := alignedBytes(64)
	w := Uint32sAt(mem, 8, 14)
	require.Len(t, w, 14)
	require.Equal(t, unsafe.Pointer(&mem[8]), unsafe.Pointer(&w[0]))

	require.Nil(t, Uint32sAt(mem, 8, 15), "one word too many")
	require.Nil(t, Uint32sAt(mem, 8, 0), "empty view")
	require.Nil(t, Uint32sAt(mem, 2, 1), "misaligned offset")
	require.Nil(t, Uint32sAt(mem, 0, 1<<31), "n*4 overflows 32 bits")
	require.Nil(t, Uint32sAt(mem, ^uint32(0), 1), "offset past the end")
	require.Nil(t, Uint32sAt(mem[2:], 0, 1), "misaligned base")
}

func TestSQEsAndCQEsAt(t *testing.T) {
	mem := alignedBytes(256)
	s := SQEsAt(mem, 64, 3)
	require.Len(t, s, 3)
	require.Equal(t, unsafe.Pointer(&mem[64]), unsafe.Pointer(&s[0]))
	require.Nil(t, SQEsAt(mem, 64, 4), "past the end")
	require.Nil(t, SQEsAt(mem, 4, 1), "misaligned offset")
	require.Nil(t, SQEsAt(mem[4:], 0, 1), "misaligned base")
	require.Nil(t, SQEsAt(mem, 0, 0), "empty view")

	c := CQEsAt(mem, 16, 15)
	require.Len(t, c, 15)
	require.Nil(t, CQEsAt(mem, 16, 16), "past the end")
	require.Nil(t, CQEsAt(mem, 12, 1), "misaligned offset")
	require.Nil(t, CQEsAt(mem, 0, 0), "empty view")
	require.Nil(t, CQEsAt(mem, 0, ^uint32(0)), "huge count")
}

func TestBufsAt(t *testing.T) {
	mem := alignedBytes(64)
	b := BufsAt(mem, 4)
	require.Len(t, b, 4)
	b[0].Resv = 9 // the ring tail overlays entry 0's resv
	require.Equal(t, byte(9), mem[14])
	require.Nil(t, BufsAt(mem, 5), "past the end")
	require.Nil(t, BufsAt(mem, 0), "empty view")
}

func TestBufsAtMisaligned(t *testing.T) {
	mem := alignedBytes(64)
	require.Nil(t, BufsAt(mem[4:], 1), "misaligned base")
	require.NotNil(t, BufsAt(mem[8:], 3), "aligned sub-slice")
}

func TestBytesAtAddr(t *testing.T) {
	mem := alignedBytes(32)
	base := SliceAddr(mem)
	v := BytesAtAddr(mem, base+4, 8)
	require.Len(t, v, 8)
	require.Equal(t, 8, cap(v), "capped, so append cannot spill into the neighbour")
	v[0] = 7
	require.Equal(t, byte(7), mem[4])

	require.Len(t, BytesAtAddr(mem, base, 32), 32)
	require.Nil(t, BytesAtAddr(mem, base-1, 1), "before the start")
	require.Nil(t, BytesAtAddr(mem, base+30, 3), "runs past the end")
	require.Nil(t, BytesAtAddr(mem, base+33, 0), "starts past the end")
	require.Nil(t, BytesAtAddr(nil, base, 1), "nil memory")
	require.Nil(t, BytesAtAddr(mem, 0, 1), "address 0")
}

func TestWideEntriesAt(t *testing.T) {
	cqes := []CQE{{UserData: 1}, {UserData: 0x1122, Res: 3}, {UserData: 2}}
	c := CQE32At(cqes, 0)
	require.NotNil(t, c)
	require.Equal(t, uint64(1), c.UserData)
	require.Equal(t, uint64(0x1122), c.BigCQE[0], "second slot is big_cqe")
	require.Equal(t, uint64(3), c.BigCQE[1])
	require.NotNil(t, CQE32At(cqes, 1))
	require.Nil(t, CQE32At(cqes, 2), "last slot has no second half")
	require.Nil(t, CQE32At(cqes, ^uint32(0)))
	require.Nil(t, CQE32At(nil, 0))

	sqes := make([]SQE, 3)
	s := SQE128At(sqes, 1)
	require.NotNil(t, s)
	s.Cmd[0] = 0xab
	require.Equal(t, uint8(0xab), uint8(sqes[2].Opcode), "Cmd is the next slot")
	require.Nil(t, SQE128At(sqes, 2))
	require.Nil(t, SQE128At(nil, 0))
}

func TestAddrs(t *testing.T) {
	require.Zero(t, SliceAddr[byte](nil))
	require.Zero(t, SliceAddr([]byte{}))
	require.Zero(t, StringAddr(""))
	require.Zero(t, PtrAddr[int](nil))
	x := []int32{1, 2}
	require.Equal(t, uint64(uintptr(unsafe.Pointer(&x[0]))), SliceAddr(x))
	require.Equal(t, SliceAddr(x)+4, PtrAddr(&x[1]))
	s := string([]byte("abc"))
	require.Equal(t, uint64(uintptr(unsafe.Pointer(unsafe.StringData(s)))), StringAddr(s))
}
