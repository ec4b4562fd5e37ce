package sys

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestLayoutZcrx(t *testing.T) {
	var rqe ZcrxRQE
	var cqe ZcrxCQE
	var o ZcrxOffsets
	var a ZcrxAreaReg
	var r ZcrxIfqReg
	checkLayouts(t, []layout{
		{"io_uring_zcrx_rqe", unsafe.Sizeof(rqe), 16, unsafe.Alignof(rqe), 8, []off{
			{"off", unsafe.Offsetof(rqe.Off), 0},
			{"len", unsafe.Offsetof(rqe.Len), 8},
			{"__pad", unsafe.Offsetof(rqe.Pad), 12},
		}},
		{"io_uring_zcrx_cqe", unsafe.Sizeof(cqe), 16, unsafe.Alignof(cqe), 8, []off{
			{"off", unsafe.Offsetof(cqe.Off), 0},
			{"__pad", unsafe.Offsetof(cqe.Pad), 8},
		}},
		{"io_uring_zcrx_offsets", unsafe.Sizeof(o), 32, unsafe.Alignof(o), 8, []off{
			{"head", unsafe.Offsetof(o.Head), 0},
			{"tail", unsafe.Offsetof(o.Tail), 4},
			{"rqes", unsafe.Offsetof(o.RQEs), 8},
			{"__resv2", unsafe.Offsetof(o.Resv2), 12},
			{"__resv", unsafe.Offsetof(o.Resv), 16},
		}},
		{"io_uring_zcrx_area_reg", unsafe.Sizeof(a), 48, unsafe.Alignof(a), 8, []off{
			{"addr", unsafe.Offsetof(a.Addr), 0},
			{"len", unsafe.Offsetof(a.Len), 8},
			{"rq_area_token", unsafe.Offsetof(a.RqAreaToken), 16},
			{"flags", unsafe.Offsetof(a.Flags), 24},
			{"dmabuf_fd", unsafe.Offsetof(a.DMABufFd), 28},
			{"__resv2", unsafe.Offsetof(a.Resv2), 32},
		}},
		{"io_uring_zcrx_ifq_reg", unsafe.Sizeof(r), 96, unsafe.Alignof(r), 8, []off{
			{"if_idx", unsafe.Offsetof(r.IfIdx), 0},
			{"if_rxq", unsafe.Offsetof(r.IfRxq), 4},
			{"rq_entries", unsafe.Offsetof(r.RqEntries), 8},
			{"flags", unsafe.Offsetof(r.Flags), 12},
			{"area_ptr", unsafe.Offsetof(r.AreaPtr), 16},
			{"region_ptr", unsafe.Offsetof(r.RegionPtr), 24},
			{"offsets", unsafe.Offsetof(r.Offsets), 32},
			{"zcrx_id", unsafe.Offsetof(r.ZcrxID), 64},
			{"rx_buf_len", unsafe.Offsetof(r.RxBufLen), 68},
			{"event_desc", unsafe.Offsetof(r.EventDesc), 72},
			{"__resv", unsafe.Offsetof(r.Resv), 80},
		}},
	})
}

func TestZcrxConstants(t *testing.T) {
	require.Equal(t, 48, ZcrxAreaShift)
	require.Equal(t, uint64(0xffff000000000000), ZcrxAreaMask)
	require.Equal(t, uint32(1), ZcrxAreaDMABuf)
	c := CQE32{BigCQE: [2]uint64{3<<ZcrxAreaShift | 0x2000, 0}}
	z := c.Zcrx()
	require.Equal(t, uint64(3), z.Off>>ZcrxAreaShift)
	require.Equal(t, uint64(0x2000), z.Off&^ZcrxAreaMask)
}
