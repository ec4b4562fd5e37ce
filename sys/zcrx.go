package sys

// Zero-copy receive (zcrx): IORING_REGISTER_ZCRX_IFQ binds a hardware rx
// queue of a NIC to a ring; IORING_OP_RECV_ZC then posts CQE32s whose extras
// (ZcrxCQE) say where in the registered area the payload landed, and the
// application hands the buffers back through a refill ring of ZcrxRQE.
// Layouts from include/uapi/linux/io_uring.h, include/uapi/linux/io_uring/zcrx.h
// since 7.1, with the release of each later addition.

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
	IfIdx     uint32      // if_idx: network interface index (ZCRX_REG_IMPORT: the exported zcrx fd)
	IfRxq     uint32      // if_rxq: hardware rx queue of the interface
	RqEntries uint32      // rq_entries: refill ring size (rounded up to a power of two)
	Flags     uint32      // flags (ZCRX_REG_*: 0 before 6.19)
	AreaPtr   uint64      // area_ptr: struct io_uring_zcrx_area_reg *
	RegionPtr uint64      // region_ptr: struct io_uring_region_desc * (the refill ring)
	Offsets   ZcrxOffsets // offsets: out
	ZcrxID    uint32      // zcrx_id: out; the SQE's zcrx_ifq_idx for RECV_ZC
	RxBufLen  uint32      // rx_buf_len [7.0] (ZCRX_FEATURE_RX_PAGE_SIZE: the rx page size wanted, 0 = default; __resv2 before)
	EventDesc uint64      // event_desc [7.2] (struct zcrx_event_desc *, or 0; __resv[0] before)
	Resv      [2]uint64   // __resv
}

// Registration flags (ZcrxIfqReg.Flags).
const (
	ZcrxRegImport uint32 = 1 // ZCRX_REG_IMPORT [6.19]: share the zcrx whose exported fd is in IfIdx
	ZcrxRegNodev  uint32 = 2 // ZCRX_REG_NODEV [7.1]: no net device; data is copied in
)

// Features a kernel's zcrx has (QueryZcrxInfo.Features).
const (
	ZcrxFeatureRxPageSize uint32 = 1 << 0 // ZCRX_FEATURE_RX_PAGE_SIZE [7.0]: ZcrxIfqReg.RxBufLen
	ZcrxFeatureEvent      uint32 = 1 << 1 // ZCRX_FEATURE_EVENT [7.2]: ZcrxIfqReg.EventDesc
)

// Event types a zcrx posts (as a CQE with ZcrxEventDesc.UserData and the
// type in res) once armed (ZcrxEventDesc.TypeMask holds 1 << type).
const (
	ZcrxEventAllocFail uint32 = 0 // ZCRX_EVENT_ALLOC_FAIL [7.2]: out of buffers
	ZcrxEventCopy      uint32 = 1 // ZCRX_EVENT_COPY [7.2]: data was copied, not received in place
)

// ZcrxEventDescFlagStats says ZcrxEventDesc.StatsOffset is valid.
const ZcrxEventDescFlagStats uint32 = 1 << 0 // ZCRX_EVENT_DESC_FLAG_STATS [7.2]

// ZcrxStats is struct zcrx_stats [7.2], kept by the kernel in the refill
// ring's region at ZcrxEventDesc.StatsOffset.
type ZcrxStats struct {
	CopyCount uint64 // copy_count: copy-fallback CQEs so far
	CopyBytes uint64 // copy_bytes: bytes copied so far
}

// ZcrxEventDesc is struct zcrx_event_desc [7.2], what ZcrxIfqReg.EventDesc
// points at.
type ZcrxEventDesc struct {
	UserData    uint64    // user_data: of the event CQEs
	TypeMask    uint32    // type_mask: 1 << ZcrxEvent* allowed
	Flags       uint32    // flags (ZCRX_EVENT_DESC_FLAG_*)
	StatsOffset uint64    // stats_offset: of a ZcrxStats in the refill ring's region
	Resv2       [9]uint64 // __resv2
}

// Operations of IORING_REGISTER_ZCRX_CTRL (ZcrxCtrl.Op).
const (
	ZcrxCtrlFlushRQ  uint32 = 0 // ZCRX_CTRL_FLUSH_RQ [6.19]: take back the refill ring's entries now
	ZcrxCtrlExport   uint32 = 1 // ZCRX_CTRL_EXPORT [6.19]: an fd other rings import with ZcrxRegImport
	ZcrxCtrlArmEvent uint32 = 2 // ZCRX_CTRL_ARM_EVENT [7.2]: let an event type fire again
	ZcrxCtrlAddArea  uint32 = 3 // ZCRX_CTRL_ADD_AREA [7.3]: register one more area
)

// ZcrxCtrl is struct zcrx_ctrl [6.19], the argument of
// IORING_REGISTER_ZCRX_CTRL. Data holds the operation's argument: one of
// ZcrxCtrlExportArg, ZcrxCtrlFlushRQArg, ZcrxCtrlArmEventArg and
// ZcrxCtrlAddAreaArg, all 48 bytes.
type ZcrxCtrl struct {
	ZcrxID uint32    // zcrx_id
	Op     uint32    // op (ZCRX_CTRL_*)
	Resv   [2]uint64 // __resv
	Data   [6]uint64 // zc_export | zc_flush | zc_arm_event [7.2] | zc_area [7.3]
}

// ZcrxCtrlFlushRQArg is struct zcrx_ctrl_flush_rq [6.19].
type ZcrxCtrlFlushRQArg struct {
	Resv [6]uint64 // __resv
}

// ZcrxCtrlExportArg is struct zcrx_ctrl_export [6.19].
type ZcrxCtrlExportArg struct {
	ZcrxFd uint32     // zcrx_fd: out
	Resv1  [11]uint32 // __resv1
}

// ZcrxCtrlArmEventArg is struct zcrx_ctrl_arm_event [7.2].
type ZcrxCtrlArmEventArg struct {
	EventType uint32     // event_type (ZCRX_EVENT_*)
	Resv      [11]uint32 // __resv
}

// ZcrxCtrlAddAreaArg is struct zcrx_ctrl_add_area [7.3].
type ZcrxCtrlAddAreaArg struct {
	AreaPtr uint64    // area_ptr: struct io_uring_zcrx_area_reg *
	Resv    [5]uint64 // __resv
}
