package sys

// Zero-copy receive (zcrx): IORING_REGISTER_ZCRX_IFQ binds a hardware rx
// queue of a NIC to a ring; IORING_OP_RECV_ZC then posts CQE32s whose extras
// (ZcrxCQE) say where in the registered area the payload landed, and the
// application hands the buffers back through a refill ring of ZcrxRQE.
// Layouts as of Linux 6.18 (include/uapi/linux/io_uring.h).

// ZcrxRQE is struct io_uring_zcrx_rqe [6.15], an entry of the refill ring:
// a buffer given back to the kernel.
type ZcrxRQE struct {
	Off uint64 // off: area token (area id << ZcrxAreaShift) | offset in the area
	Len uint32 // len
	Pad uint32 // __pad
}

// ZcrxCQE is struct io_uring_zcrx_cqe [6.15], the extras of a RECV_ZC CQE32.
type ZcrxCQE struct {
	Off uint64 // off: area id << ZcrxAreaShift | offset of the data in the area
	Pad uint64 // __pad
}

// Zcrx returns the zero-copy receive extras of a RECV_ZC CQE32.
func (c *CQE32) Zcrx() ZcrxCQE { return ZcrxCQE{Off: c.BigCQE[0], Pad: c.BigCQE[1]} }

// The area id is encoded in the top bits of ZcrxRQE.Off and ZcrxCQE.Off.
const (
	ZcrxAreaShift        = 48                              // IORING_ZCRX_AREA_SHIFT [6.15]
	ZcrxAreaMask  uint64 = ^(uint64(1)<<ZcrxAreaShift - 1) // IORING_ZCRX_AREA_MASK [6.15]
)

// ZcrxOffsets is struct io_uring_zcrx_offsets [6.15]: where the refill
// ring's head, tail and entries lie in its region, filled in by the kernel.
type ZcrxOffsets struct {
	Head  uint32    // head
	Tail  uint32    // tail
	RQEs  uint32    // rqes
	Resv2 uint32    // __resv2
	Resv  [2]uint64 // __resv
}

// ZcrxAreaDMABuf makes the area a dma-buf (ZcrxAreaReg.DMABufFd) instead of
// user memory (ZcrxAreaReg.Flags).
const ZcrxAreaDMABuf uint32 = 1 // IORING_ZCRX_AREA_DMABUF [6.16]

// ZcrxAreaReg is struct io_uring_zcrx_area_reg [6.15]: the memory packets
// are received into.
type ZcrxAreaReg struct {
	Addr        uint64    // addr: page aligned (0 for a dma-buf)
	Len         uint64    // len: a multiple of the page size
	RqAreaToken uint64    // rq_area_token: 0 in, the area token out
	Flags       uint32    // flags (IORING_ZCRX_AREA_*)
	DMABufFd    uint32    // dmabuf_fd [6.16] (__resv1 before)
	Resv2       [2]uint64 // __resv2
}

// ZcrxIfqReg is struct io_uring_zcrx_ifq_reg [6.15], the argument of
// IORING_REGISTER_ZCRX_IFQ.
type ZcrxIfqReg struct {
	IfIdx     uint32      // if_idx: network interface index
	IfRxq     uint32      // if_rxq: hardware rx queue of the interface
	RqEntries uint32      // rq_entries: refill ring size (rounded up to a power of two)
	Flags     uint32      // flags: 0 on 6.18
	AreaPtr   uint64      // area_ptr: struct io_uring_zcrx_area_reg *
	RegionPtr uint64      // region_ptr: struct io_uring_region_desc * (the refill ring)
	Offsets   ZcrxOffsets // offsets: out
	ZcrxID    uint32      // zcrx_id: out; the SQE's zcrx_ifq_idx for RECV_ZC
	Resv2     uint32      // __resv2 (rx_buf_len in later kernels): 0 on 6.18
	Resv      [3]uint64   // __resv
}
