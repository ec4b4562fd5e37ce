package sys

// SQE is struct io_uring_sqe (64 bytes). Unions are flattened to the field
// that names their first member; the builders in package sqe know which
// member each opcode uses.
type SQE struct {
	Opcode      Op       // opcode
	Flags       SQEFlags // flags (IOSQE_*)
	Ioprio      uint16   // ioprio; send/recv/accept flags for socket ops
	Fd          int32    // fd
	Off         uint64   // off | addr2 | cmd_op,__pad1
	Addr        uint64   // addr | splice_off_in | level,optname
	Len         uint32   // len
	OpFlags     uint32   // rw_flags | fsync_flags | poll32_events | msg_flags | timeout_flags | …
	UserData    uint64   // user_data
	BufIndex    uint16   // buf_index | buf_group
	Personality uint16   // personality
	FileIndex   uint32   // splice_fd_in | file_index | optlen | addr_len,__pad3
	Addr3       uint64   // addr3 | attr_ptr | optval | cmd[0:8]
	Pad2        uint64   // __pad2[0] | attr_type_mask | cmd[8:16]
}

// SQE128 is the 128-byte SQE of IORING_SETUP_SQE128 rings: the SQE followed
// by 64 more bytes of command data (cmd[16:80]).
type SQE128 struct {
	SQE
	Cmd [64]byte
}

// CQE is struct io_uring_cqe (16 bytes).
type CQE struct {
	UserData uint64   // user_data
	Res      int32    // res: a byte count, fd, or -errno
	Flags    CQEFlags // flags (IORING_CQE_F_*)
}

// CQE32 is the 32-byte CQE of IORING_SETUP_CQE32 rings (and of CQEs with
// IORING_CQE_F_32 on CQE_MIXED rings).
type CQE32 struct {
	CQE
	BigCQE [2]uint64 // big_cqe[]
}

// SQRingOffsets is struct io_sqring_offsets.
type SQRingOffsets struct {
	Head        uint32 // head
	Tail        uint32 // tail
	RingMask    uint32 // ring_mask
	RingEntries uint32 // ring_entries
	Flags       uint32 // flags
	Dropped     uint32 // dropped
	Array       uint32 // array
	Resv1       uint32 // resv1
	UserAddr    uint64 // user_addr (NO_MMAP: SQE memory)
}

// CQRingOffsets is struct io_cqring_offsets.
type CQRingOffsets struct {
	Head        uint32 // head
	Tail        uint32 // tail
	RingMask    uint32 // ring_mask
	RingEntries uint32 // ring_entries
	Overflow    uint32 // overflow
	CQEs        uint32 // cqes
	Flags       uint32 // flags
	Resv1       uint32 // resv1
	UserAddr    uint64 // user_addr (NO_MMAP: ring memory)
}

// Params is struct io_uring_params.
type Params struct {
	SQEntries    uint32        // sq_entries
	CQEntries    uint32        // cq_entries
	Flags        SetupFlags    // flags
	SQThreadCPU  uint32        // sq_thread_cpu
	SQThreadIdle uint32        // sq_thread_idle (milliseconds)
	Features     Features      // features
	WQFd         uint32        // wq_fd
	Resv         [3]uint32     // resv
	SQOff        SQRingOffsets // sq_off
	CQOff        CQRingOffsets // cq_off
}

// ProbeOp is struct io_uring_probe_op.
type ProbeOp struct {
	Op    Op     // op
	Resv  uint8  // resv
	Flags uint16 // flags (IO_URING_OP_SUPPORTED)
	Resv2 uint32 // resv2
}

// ProbeHdr is the fixed part of struct io_uring_probe.
type ProbeHdr struct {
	LastOp Op        // last_op
	OpsLen uint8     // ops_len
	Resv   uint16    // resv
	Resv2  [3]uint32 // resv2
}

// Probe is struct io_uring_probe with room for every opcode (256).
type Probe struct {
	ProbeHdr
	Ops [256]ProbeOp // ops[]
}

// RsrcRegister is struct io_uring_rsrc_register.
type RsrcRegister struct {
	Nr    uint32 // nr
	Flags uint32 // flags (IORING_RSRC_REGISTER_SPARSE)
	Resv2 uint64 // resv2
	Data  uint64 // data: __s32 fds[] or struct iovec[]
	Tags  uint64 // tags: __u64[]
}

// RsrcUpdate is struct io_uring_rsrc_update.
type RsrcUpdate struct {
	Offset uint32 // offset
	Resv   uint32 // resv
	Data   uint64 // data
}

// RsrcUpdate2 is struct io_uring_rsrc_update2.
type RsrcUpdate2 struct {
	Offset uint32 // offset
	Resv   uint32 // resv
	Data   uint64 // data
	Tags   uint64 // tags
	Nr     uint32 // nr
	Resv2  uint32 // resv2
}

// FilesUpdate is struct io_uring_files_update (deprecated by RsrcUpdate).
type FilesUpdate struct {
	Offset uint32 // offset
	Resv   uint32 // resv
	Fds    uint64 // fds: __s32 *
}

// Buf is struct io_uring_buf, one entry of a provided-buffer ring. The ring
// tail overlays Resv of entry 0.
type Buf struct {
	Addr uint64 // addr
	Len  uint32 // len
	Bid  uint16 // bid
	Resv uint16 // resv (entry 0: the ring tail)
}

// BufReg is struct io_uring_buf_reg.
type BufReg struct {
	RingAddr    uint64    // ring_addr
	RingEntries uint32    // ring_entries
	Bgid        uint16    // bgid
	Flags       uint16    // flags (IOU_PBUF_RING_*)
	Resv        [3]uint64 // resv
}

// BufStatus is struct io_uring_buf_status.
type BufStatus struct {
	BufGroup uint32    // buf_group (in)
	Head     uint32    // head (out)
	Resv     [8]uint32 // resv
}

// Timespec is struct __kernel_timespec.
type Timespec struct {
	Sec  int64 // tv_sec
	Nsec int64 // tv_nsec
}

// GeteventsArg is struct io_uring_getevents_arg.
type GeteventsArg struct {
	Sigmask     uint64 // sigmask
	SigmaskSz   uint32 // sigmask_sz
	MinWaitUsec uint32 // min_wait_usec [6.12] (was pad)
	Ts          uint64 // ts: struct __kernel_timespec *
}

// RegWait is struct io_uring_reg_wait.
type RegWait struct {
	Ts          Timespec  // ts
	MinWaitUsec uint32    // min_wait_usec
	Flags       uint32    // flags (IORING_REG_WAIT_TS)
	Sigmask     uint64    // sigmask
	SigmaskSz   uint32    // sigmask_sz
	Pad         [3]uint32 // pad
	Pad2        [2]uint64 // pad2
}

// SyncCancelReg is struct io_uring_sync_cancel_reg.
type SyncCancelReg struct {
	Addr    uint64    // addr (user_data to match)
	Fd      int32     // fd
	Flags   uint32    // flags (IORING_ASYNC_CANCEL_*)
	Timeout Timespec  // timeout
	Opcode  Op        // opcode
	Pad     [7]uint8  // pad
	Pad2    [3]uint64 // pad2
}

// FileIndexRange is struct io_uring_file_index_range: slots [Off, Off+Len).
type FileIndexRange struct {
	Off  uint32 // off
	Len  uint32 // len
	Resv uint64 // resv
}

// RecvmsgOut is struct io_uring_recvmsg_out, the header a multishot
// RECVMSG writes at the start of each provided buffer.
type RecvmsgOut struct {
	Namelen    uint32 // namelen
	Controllen uint32 // controllen
	Payloadlen uint32 // payloadlen
	Flags      uint32 // flags (MSG_*)
}

// NAPI is struct io_uring_napi.
type NAPI struct {
	BusyPollTo     uint32   // busy_poll_to (microseconds)
	PreferBusyPoll uint8    // prefer_busy_poll
	Opcode         uint8    // opcode (IO_URING_NAPI_*)
	Pad            [2]uint8 // pad
	OpParam        uint32   // op_param
	Resv           uint32   // resv
}

// ClockRegister is struct io_uring_clock_register.
type ClockRegister struct {
	ClockID uint32    // clockid
	Resv    [3]uint32 // __resv
}

// CloneBuffers is struct io_uring_clone_buffers.
type CloneBuffers struct {
	SrcFd  uint32    // src_fd
	Flags  uint32    // flags (IORING_REGISTER_SRC_REGISTERED, DST_REPLACE)
	SrcOff uint32    // src_off
	DstOff uint32    // dst_off
	Nr     uint32    // nr
	Pad    [3]uint32 // pad
}

// RegionDesc is struct io_uring_region_desc.
type RegionDesc struct {
	UserAddr   uint64    // user_addr
	Size       uint64    // size
	Flags      uint32    // flags (IORING_MEM_REGION_TYPE_USER)
	ID         uint32    // id
	MmapOffset uint64    // mmap_offset
	Resv       [4]uint64 // __resv
}

// MemRegionReg is struct io_uring_mem_region_reg.
type MemRegionReg struct {
	RegionUptr uint64    // region_uptr: struct io_uring_region_desc *
	Flags      uint64    // flags (IORING_MEM_REGION_REG_WAIT_ARG)
	Resv       [2]uint64 // __resv
}

// Restriction is struct io_uring_restriction. Arg holds register_op,
// sqe_op or sqe_flags depending on Opcode.
type Restriction struct {
	Opcode uint16    // opcode (IORING_RESTRICTION_*)
	Arg    uint8     // register_op | sqe_op | sqe_flags
	Resv   uint8     // resv
	Resv2  [3]uint32 // resv2
}

// AttrPI is struct io_uring_attr_pi, protection information for a
// read/write with IORING_RW_ATTR_FLAG_PI.
type AttrPI struct {
	Flags  uint16 // flags
	AppTag uint16 // app_tag
	Len    uint32 // len
	Addr   uint64 // addr
	Seed   uint64 // seed
	Rsvd   uint64 // rsvd
}

// QueryHdr is struct io_uring_query_hdr (REGISTER_QUERY, 6.18).
type QueryHdr struct {
	NextEntry uint64    // next_entry
	QueryData uint64    // query_data
	QueryOp   uint32    // query_op
	Size      uint32    // size
	Result    int32     // result
	Resv      [3]uint32 // __resv
}

// QueryOpcode is struct io_uring_query_opcode (REGISTER_QUERY, 6.18).
type QueryOpcode struct {
	NrRequestOpcodes  uint32 // nr_request_opcodes
	NrRegisterOpcodes uint32 // nr_register_opcodes
	FeatureFlags      uint64 // feature_flags
	RingSetupFlags    uint64 // ring_setup_flags
	EnterFlags        uint64 // enter_flags
	SQEFlags          uint64 // sqe_flags
}
