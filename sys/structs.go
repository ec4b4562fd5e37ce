package sys

// SQE is struct io_uring_sqe [5.1] (64 bytes). Unions are flattened to one
// field whose comment names every member it holds ("a | b" for union
// members, "a,b" for a struct overlaying the field), with the release of
// each member newer than 6.1; the builders in package sqe know which member
// each opcode uses.
type SQE struct {
	Opcode      Op       // opcode
	Flags       SQEFlags // flags (IOSQE_*)
	Ioprio      uint16   // ioprio; send/recv/accept flags for socket ops
	Fd          int32    // fd
	Off         uint64   // off | addr2 | cmd_op,__pad1
	Addr        uint64   // addr | splice_off_in | level [6.7],optname [6.7]
	Len         uint32   // len
	OpFlags     uint32   // rw_flags | fsync_flags | poll_events | poll32_events | sync_range_flags | msg_flags | timeout_flags | accept_flags | cancel_flags | open_flags | statx_flags | fadvise_advice | splice_flags | rename_flags | unlink_flags | hardlink_flags | xattr_flags | msg_ring_flags | uring_cmd_flags | waitid_flags [6.7] | futex_flags [6.7] | install_fd_flags [6.8] | nop_flags [6.11] | pipe_flags [6.16]
	UserData    uint64   // user_data
	BufIndex    uint16   // buf_index | buf_group
	Personality uint16   // personality
	FileIndex   uint32   // splice_fd_in | file_index | zcrx_ifq_idx [6.15] | optlen [6.7] | addr_len,__pad3 | write_stream [6.16],__pad4 [6.16]
	Addr3       uint64   // addr3 | attr_ptr [6.14] | optval [6.7] | cmd[0:8]
	Pad2        uint64   // __pad2[0] | attr_type_mask [6.14] | cmd[8:16]
}

// SQE128 is the 128-byte SQE of IORING_SETUP_SQE128 rings: the SQE followed
// by 64 more bytes of command data (cmd[16:80]).
type SQE128 struct {
	SQE
	Cmd [64]byte
}

// CQE is struct io_uring_cqe [5.1] (16 bytes; big_cqe[] is in CQE32).
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

// SQRingOffsets is struct io_sqring_offsets [5.1].
type SQRingOffsets struct {
	Head        uint32 // head
	Tail        uint32 // tail
	RingMask    uint32 // ring_mask
	RingEntries uint32 // ring_entries
	Flags       uint32 // flags
	Dropped     uint32 // dropped
	Array       uint32 // array
	Resv1       uint32 // resv1
	UserAddr    uint64 // user_addr [6.5] (NO_MMAP: SQE memory; resv2 before)
}

// CQRingOffsets is struct io_cqring_offsets [5.1].
type CQRingOffsets struct {
	Head        uint32 // head
	Tail        uint32 // tail
	RingMask    uint32 // ring_mask
	RingEntries uint32 // ring_entries
	Overflow    uint32 // overflow
	CQEs        uint32 // cqes
	Flags       uint32 // flags
	Resv1       uint32 // resv1
	UserAddr    uint64 // user_addr [6.5] (NO_MMAP: ring memory; resv2 before)
}

// Params is struct io_uring_params [5.1].
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

// ProbeOp is struct io_uring_probe_op [5.6].
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

// Probe is struct io_uring_probe [5.6] with room for every opcode (256).
type Probe struct {
	ProbeHdr
	Ops [256]ProbeOp // ops[]
}

// RsrcRegister is struct io_uring_rsrc_register [5.13].
type RsrcRegister struct {
	Nr    uint32 // nr
	Flags uint32 // flags (IORING_RSRC_REGISTER_SPARSE)
	Resv2 uint64 // resv2
	Data  uint64 // data: __s32 fds[] or struct iovec[]
	Tags  uint64 // tags: __u64[]
}

// RsrcUpdate is struct io_uring_rsrc_update [5.13].
type RsrcUpdate struct {
	Offset uint32 // offset
	Resv   uint32 // resv
	Data   uint64 // data
}

// RsrcUpdate2 is struct io_uring_rsrc_update2 [5.13].
type RsrcUpdate2 struct {
	Offset uint32 // offset
	Resv   uint32 // resv
	Data   uint64 // data
	Tags   uint64 // tags
	Nr     uint32 // nr
	Resv2  uint32 // resv2
}

// FilesUpdate is struct io_uring_files_update [5.5] (deprecated by RsrcUpdate).
type FilesUpdate struct {
	Offset uint32 // offset
	Resv   uint32 // resv
	Fds    uint64 // fds: __s32 *
}

// Buf is struct io_uring_buf [5.19], one entry of a provided-buffer ring.
// The ring tail overlays Resv of entry 0 (see BufRing).
type Buf struct {
	Addr uint64 // addr
	Len  uint32 // len
	Bid  uint16 // bid
	Resv uint16 // resv (entry 0: the ring tail)
}

// BufRing is struct io_uring_buf_ring [5.19], the head of a provided-buffer
// ring: its 16 bytes overlay the ring's first Buf (bufs[]), whose Resv is
// the ring's Tail.
type BufRing struct {
	Resv1 uint64 // resv1
	Resv2 uint32 // resv2
	Resv3 uint16 // resv3
	Tail  uint16 // tail: written by the application, read by the kernel
}

// BufReg is struct io_uring_buf_reg [5.19].
type BufReg struct {
	RingAddr    uint64    // ring_addr
	RingEntries uint32    // ring_entries
	Bgid        uint16    // bgid
	Flags       uint16    // flags [6.4] (IOU_PBUF_RING_*; pad before)
	MinLeft     uint32    // min_left [7.1] (IOU_PBUF_RING_INC: a buffer with fewer bytes left is done; 0 = 1; stable kernels have it back to 6.12)
	Resv        [5]uint32 // resv (__u64 resv[3] over this and MinLeft before 7.1)
}

// BufStatus is struct io_uring_buf_status [6.8].
type BufStatus struct {
	BufGroup uint32    // buf_group (in)
	Head     uint32    // head (out)
	Resv     [8]uint32 // resv
}

// Timespec is struct __kernel_timespec (linux/time_types.h).
type Timespec struct {
	Sec  int64 // tv_sec
	Nsec int64 // tv_nsec
}

// GeteventsArg is struct io_uring_getevents_arg [5.11].
type GeteventsArg struct {
	Sigmask     uint64 // sigmask
	SigmaskSz   uint32 // sigmask_sz
	MinWaitUsec uint32 // min_wait_usec [6.12] (pad before)
	Ts          uint64 // ts: struct __kernel_timespec *
}

// RegWait is struct io_uring_reg_wait [6.13].
type RegWait struct {
	Ts          Timespec  // ts
	MinWaitUsec uint32    // min_wait_usec
	Flags       uint32    // flags (IORING_REG_WAIT_TS)
	Sigmask     uint64    // sigmask
	SigmaskSz   uint32    // sigmask_sz
	Pad         [3]uint32 // pad
	Pad2        [2]uint64 // pad2
}

// SyncCancelReg is struct io_uring_sync_cancel_reg [6.0].
type SyncCancelReg struct {
	Addr    uint64    // addr (user_data to match)
	Fd      int32     // fd
	Flags   uint32    // flags (IORING_ASYNC_CANCEL_*)
	Timeout Timespec  // timeout
	Opcode  Op        // opcode [6.6] (IORING_ASYNC_CANCEL_OP; __u64 pad[4] over this, Pad and Pad2 before)
	Pad     [7]uint8  // pad
	Pad2    [3]uint64 // pad2 [6.6]
}

// FileIndexRange is struct io_uring_file_index_range [6.0]: slots [Off, Off+Len).
type FileIndexRange struct {
	Off  uint32 // off
	Len  uint32 // len
	Resv uint64 // resv
}

// RecvmsgOut is struct io_uring_recvmsg_out [6.0], the header a multishot
// RECVMSG writes at the start of each provided buffer.
type RecvmsgOut struct {
	Namelen    uint32 // namelen
	Controllen uint32 // controllen
	Payloadlen uint32 // payloadlen
	Flags      uint32 // flags (MSG_*)
}

// NAPI is struct io_uring_napi [6.9].
type NAPI struct {
	BusyPollTo     uint32   // busy_poll_to (microseconds)
	PreferBusyPoll uint8    // prefer_busy_poll
	Opcode         uint8    // opcode [6.13] (IO_URING_NAPI_*; __u8 pad[3] and __u64 resv over the rest before)
	Pad            [2]uint8 // pad
	OpParam        uint32   // op_param [6.13]
	Resv           uint32   // resv
}

// ClockRegister is struct io_uring_clock_register [6.12].
type ClockRegister struct {
	ClockID uint32    // clockid
	Resv    [3]uint32 // __resv
}

// CloneBuffers is struct io_uring_clone_buffers [6.12].
type CloneBuffers struct {
	SrcFd  uint32    // src_fd
	Flags  uint32    // flags (IORING_REGISTER_SRC_REGISTERED, DST_REPLACE)
	SrcOff uint32    // src_off [6.13] (__u32 pad[6] over these and Pad before)
	DstOff uint32    // dst_off [6.13]
	Nr     uint32    // nr [6.13]
	Pad    [3]uint32 // pad
}

// RegionDesc is struct io_uring_region_desc [6.13].
type RegionDesc struct {
	UserAddr   uint64    // user_addr
	Size       uint64    // size
	Flags      uint32    // flags (IORING_MEM_REGION_TYPE_USER)
	ID         uint32    // id
	MmapOffset uint64    // mmap_offset
	Resv       [4]uint64 // __resv
}

// MemRegionReg is struct io_uring_mem_region_reg [6.13].
type MemRegionReg struct {
	RegionUptr uint64    // region_uptr: struct io_uring_region_desc *
	Flags      uint64    // flags (IORING_MEM_REGION_REG_WAIT_ARG)
	Resv       [2]uint64 // __resv
}

// Restriction is struct io_uring_restriction [5.10]. Arg holds register_op,
// sqe_op or sqe_flags depending on Opcode.
type Restriction struct {
	Opcode uint16    // opcode (IORING_RESTRICTION_*)
	Arg    uint8     // register_op | sqe_op | sqe_flags
	Resv   uint8     // resv
	Resv2  [3]uint32 // resv2
}

// TaskRestriction is struct io_uring_task_restriction [7.0], the argument
// of IORING_REGISTER_RESTRICTIONS with no ring (fd -1): restrictions every
// ring the task (and its children) creates from then on inherits. NrRes
// Restriction entries follow it in memory (restrictions[]).
type TaskRestriction struct {
	Flags uint16    // flags: 0
	NrRes uint16    // nr_res: how many Restriction entries follow
	Resv  [3]uint32 // resv
}

// AttrPI is struct io_uring_attr_pi [6.14], protection information for a
// read/write with IORING_RW_ATTR_FLAG_PI.
type AttrPI struct {
	Flags  uint16 // flags
	AppTag uint16 // app_tag
	Len    uint32 // len
	Addr   uint64 // addr
	Seed   uint64 // seed
	Rsvd   uint64 // rsvd
}

// QueryHdr is struct io_uring_query_hdr [6.18] (REGISTER_QUERY).
type QueryHdr struct {
	NextEntry uint64    // next_entry
	QueryData uint64    // query_data
	QueryOp   uint32    // query_op
	Size      uint32    // size
	Result    int32     // result
	Resv      [3]uint32 // __resv
}

// QueryOpcode is struct io_uring_query_opcode [6.18], the answer to
// IO_URING_QUERY_OPCODES. The kernel copies min(QueryHdr.Size, its own
// size) bytes, so a smaller or larger struct works with any kernel.
type QueryOpcode struct {
	NrRequestOpcodes  uint32 // nr_request_opcodes
	NrRegisterOpcodes uint32 // nr_register_opcodes
	FeatureFlags      uint64 // feature_flags
	RingSetupFlags    uint64 // ring_setup_flags
	EnterFlags        uint64 // enter_flags
	SQEFlags          uint64 // sqe_flags
	NrQueryOpcodes    uint32 // nr_query_opcodes: query opcodes [0, n) are known
	Pad               uint32 // __pad
}

// QueryZcrxInfo is struct io_uring_query_zcrx [6.19], the answer to
// IO_URING_QUERY_ZCRX.
type QueryZcrxInfo struct {
	RegisterFlags  uint64 // register_flags (ZCRX_REG_* known)
	AreaFlags      uint64 // area_flags (IORING_ZCRX_AREA_* known)
	NrCtrlOpcodes  uint32 // nr_ctrl_opcodes (ZCRX_CTRL_* [0, n) known)
	Features       uint32 // features [7.0] (ZCRX_FEATURE_*; __resv1 before)
	RqHdrSize      uint32 // rq_hdr_size: the refill ring header's size
	RqHdrAlignment uint32 // rq_hdr_alignment
	Resv2          uint64 // __resv2
}

// QueryZcrxEventInfo is struct io_uring_query_zcrx_event [7.2], the answer to
// IO_URING_QUERY_ZCRX_EVENT.
type QueryZcrxEventInfo struct {
	EventFlags        uint32    // event_flags (ZCRX_EVENT_* known)
	StatsSize         uint32    // stats_size: sizeof(struct zcrx_stats)
	StatsOffAlignment uint32    // stats_off_alignment
	Resv1             uint32    // __resv1
	Resv2             [4]uint64 // __resv2
}

// QuerySCQInfo is struct io_uring_query_scq [6.19], the answer to
// IO_URING_QUERY_SCQ: the SQ/CQ rings' header.
type QuerySCQInfo struct {
	HdrSize      uint64 // hdr_size
	HdrAlignment uint64 // hdr_alignment
}

// IOTimespec is struct io_timespec [6.16], the timestamp in the extras of a
// SOCKET_URING_OP_TX_TIMESTAMP CQE32.
type IOTimespec struct {
	Sec  uint64 // tv_sec
	Nsec uint64 // tv_nsec
}
