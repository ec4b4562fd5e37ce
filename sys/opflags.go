package sys

// Per-op flag families. Each goes in the SQE field its comment names.

// FsyncFlags go in the op-flags word of FSYNC.
const (
	FsyncDatasync uint32 = 1 << 0 // IORING_FSYNC_DATASYNC [5.1]
)

// Timeout flags go in the op-flags word of TIMEOUT, TIMEOUT_REMOVE and
// LINK_TIMEOUT.
const (
	TimeoutAbs          uint32 = 1 << 0                            // IORING_TIMEOUT_ABS [5.5]
	TimeoutUpdate       uint32 = 1 << 1                            // IORING_TIMEOUT_UPDATE [5.11]
	TimeoutBoottime     uint32 = 1 << 2                            // IORING_TIMEOUT_BOOTTIME [5.15]
	TimeoutRealtime     uint32 = 1 << 3                            // IORING_TIMEOUT_REALTIME [5.15]
	LinkTimeoutUpdate   uint32 = 1 << 4                            // IORING_LINK_TIMEOUT_UPDATE [5.15]
	TimeoutETimeSuccess uint32 = 1 << 5                            // IORING_TIMEOUT_ETIME_SUCCESS [5.16]
	TimeoutMultishot    uint32 = 1 << 6                            // IORING_TIMEOUT_MULTISHOT [6.4]
	TimeoutImmediateArg uint32 = 1 << 7                            // IORING_TIMEOUT_IMMEDIATE_ARG [7.1]
	TimeoutClockMask    uint32 = TimeoutBoottime | TimeoutRealtime // IORING_TIMEOUT_CLOCK_MASK
	TimeoutUpdateMask   uint32 = TimeoutUpdate | LinkTimeoutUpdate // IORING_TIMEOUT_UPDATE_MASK
)

// SpliceFdInFixed goes in the op-flags word of SPLICE and TEE: the input fd
// is a fixed-file slot.
const SpliceFdInFixed uint32 = 1 << 31 // SPLICE_F_FD_IN_FIXED [5.7]

// Poll command flags go in the len field of POLL_ADD and POLL_REMOVE.
const (
	PollAddMulti       uint32 = 1 << 0 // IORING_POLL_ADD_MULTI [5.13]
	PollUpdateEvents   uint32 = 1 << 1 // IORING_POLL_UPDATE_EVENTS [5.13]
	PollUpdateUserData uint32 = 1 << 2 // IORING_POLL_UPDATE_USER_DATA [5.13]
	PollAddLevel       uint32 = 1 << 3 // IORING_POLL_ADD_LEVEL [5.17]
)

// Cancel flags go in the op-flags word of ASYNC_CANCEL and in
// SyncCancelReg.Flags.
const (
	AsyncCancelAll      uint32 = 1 << 0 // IORING_ASYNC_CANCEL_ALL [5.19]
	AsyncCancelFd       uint32 = 1 << 1 // IORING_ASYNC_CANCEL_FD [5.19]
	AsyncCancelAny      uint32 = 1 << 2 // IORING_ASYNC_CANCEL_ANY [5.19]
	AsyncCancelFdFixed  uint32 = 1 << 3 // IORING_ASYNC_CANCEL_FD_FIXED [6.0]
	AsyncCancelUserData uint32 = 1 << 4 // IORING_ASYNC_CANCEL_USERDATA [6.6]
	AsyncCancelOp       uint32 = 1 << 5 // IORING_ASYNC_CANCEL_OP [6.6]
)

// Send/recv flags go in the ioprio field of SEND, RECV, SENDMSG, RECVMSG and
// their zero-copy forms.
const (
	RecvsendPollFirst uint16 = 1 << 0 // IORING_RECVSEND_POLL_FIRST [5.19]
	RecvMultishot     uint16 = 1 << 1 // IORING_RECV_MULTISHOT [6.0]
	RecvsendFixedBuf  uint16 = 1 << 2 // IORING_RECVSEND_FIXED_BUF [6.0]
	SendZCReportUsage uint16 = 1 << 3 // IORING_SEND_ZC_REPORT_USAGE [6.2]
	RecvsendBundle    uint16 = 1 << 4 // IORING_RECVSEND_BUNDLE [6.10]
	SendVectorized    uint16 = 1 << 5 // IORING_SEND_VECTORIZED [6.17]
)

// NotifUsageZCCopied is set in the result of an F_NOTIF CQE when the
// zero-copy send had to copy (with SendZCReportUsage).
const NotifUsageZCCopied uint32 = 1 << 31 // IORING_NOTIF_USAGE_ZC_COPIED [6.2]

// Accept flags go in the ioprio field of ACCEPT.
const (
	AcceptMultishot uint16 = 1 << 0 // IORING_ACCEPT_MULTISHOT [5.19]
	AcceptDontwait  uint16 = 1 << 1 // IORING_ACCEPT_DONTWAIT [6.10]
	AcceptPollFirst uint16 = 1 << 2 // IORING_ACCEPT_POLL_FIRST [6.10]
)

// MSG_RING commands go in the addr field of MSG_RING.
const (
	MsgData   uint64 = 0 // IORING_MSG_DATA [5.18]
	MsgSendFd uint64 = 1 // IORING_MSG_SEND_FD [6.0]
)

// MSG_RING flags go in the op-flags word of MSG_RING.
const (
	MsgRingCQESkip   uint32 = 1 << 0 // IORING_MSG_RING_CQE_SKIP [6.3]
	MsgRingFlagsPass uint32 = 1 << 1 // IORING_MSG_RING_FLAGS_PASS [6.3]
)

// FixedFdNoCloexec goes in the op-flags word of FIXED_FD_INSTALL.
const FixedFdNoCloexec uint32 = 1 << 0 // IORING_FIXED_FD_NO_CLOEXEC [6.8]

// NOP flags go in the op-flags word of NOP.
const (
	NopInjectResult uint32 = 1 << 0 // IORING_NOP_INJECT_RESULT [6.11]
	NopFile         uint32 = 1 << 1 // IORING_NOP_FILE [6.15]
	NopFixedFile    uint32 = 1 << 2 // IORING_NOP_FIXED_FILE [6.15]
	NopFixedBuffer  uint32 = 1 << 3 // IORING_NOP_FIXED_BUFFER [6.15]
	NopTW           uint32 = 1 << 4 // IORING_NOP_TW [6.17]
	NopCQE32        uint32 = 1 << 5 // IORING_NOP_CQE32 [6.18]
)

// URING_CMD flags go in the op-flags word of URING_CMD.
const (
	UringCmdFixed     uint32 = 1 << 0 // IORING_URING_CMD_FIXED [6.1]
	UringCmdMultishot uint32 = 1 << 1 // IORING_URING_CMD_MULTISHOT [6.18]
)

// Socket commands go in the cmd_op field (Off) of URING_CMD on a socket.
const (
	SocketUringOpSIOCINQ     uint32 = 0 // SOCKET_URING_OP_SIOCINQ [6.7]
	SocketUringOpSIOCOUTQ    uint32 = 1 // SOCKET_URING_OP_SIOCOUTQ [6.7]
	SocketUringOpGetsockopt  uint32 = 2 // SOCKET_URING_OP_GETSOCKOPT [6.7]
	SocketUringOpSetsockopt  uint32 = 3 // SOCKET_URING_OP_SETSOCKOPT [6.7]
	SocketUringOpTXTimestamp uint32 = 4 // SOCKET_URING_OP_TX_TIMESTAMP [6.16]
	SocketUringOpGetsockname uint32 = 5 // SOCKET_URING_OP_GETSOCKNAME [6.19]
)

// A SOCKET_URING_OP_TX_TIMESTAMP completion carries the timestamp (an
// IOTimespec in the extras of a CQE32) and, in its flags, CQEFTstampHW for
// a hardware timestamp and the SCM_TSTAMP_* type from TimestampTypeShift up.
const (
	TimestampHWShift   = 16                   // IORING_TIMESTAMP_HW_SHIFT [6.16]
	TimestampTypeShift = TimestampHWShift + 1 // IORING_TIMESTAMP_TYPE_SHIFT [6.16]
)

// RWAttrFlagPI goes in attr_type_mask of a read/write with attributes.
const RWAttrFlagPI uint64 = 1 << 0 // IORING_RW_ATTR_FLAG_PI [6.14]

// FileIndexAlloc in the file-index field asks the kernel to pick a free
// direct-descriptor slot and return it in the CQE.
const FileIndexAlloc uint32 = ^uint32(0) // IORING_FILE_INDEX_ALLOC [5.19]

// RegisterFilesSkip in a files-update array leaves that slot unchanged.
const RegisterFilesSkip int32 = -2 // IORING_REGISTER_FILES_SKIP [5.12]

// RsrcRegisterSparse registers an all-empty table (RsrcRegister.Flags).
const RsrcRegisterSparse uint32 = 1 << 0 // IORING_RSRC_REGISTER_SPARSE [5.19]

// Provided-buffer ring flags (BufReg.Flags).
const (
	PbufRingMmap uint16 = 1 // IOU_PBUF_RING_MMAP [6.4]
	PbufRingInc  uint16 = 2 // IOU_PBUF_RING_INC [6.12]
)

// Magic mmap offsets.
const (
	OffSQRing    int64 = 0          // IORING_OFF_SQ_RING [5.1]
	OffCQRing    int64 = 0x8000000  // IORING_OFF_CQ_RING [5.1]
	OffSQEs      int64 = 0x10000000 // IORING_OFF_SQES [5.1]
	OffPbufRing  int64 = 0x80000000 // IORING_OFF_PBUF_RING [6.4]
	OffPbufShift       = 16         // IORING_OFF_PBUF_SHIFT [6.4]
	OffMmapMask  int64 = 0xf8000000 // IORING_OFF_MMAP_MASK [6.4]
)

// Restriction opcodes (Restriction.Opcode).
const (
	RestrictionRegisterOp       uint16 = 0 // IORING_RESTRICTION_REGISTER_OP [5.10]
	RestrictionSQEOp            uint16 = 1 // IORING_RESTRICTION_SQE_OP [5.10]
	RestrictionSQEFlagsAllowed  uint16 = 2 // IORING_RESTRICTION_SQE_FLAGS_ALLOWED [5.10]
	RestrictionSQEFlagsRequired uint16 = 3 // IORING_RESTRICTION_SQE_FLAGS_REQUIRED [5.10]

	// RestrictionLast is one past the highest restriction opcode.
	RestrictionLast uint16 = 4 // IORING_RESTRICTION_LAST [5.10]
)

// Memory region types and flags (RegionDesc.Flags, MemRegionReg.Flags).
const (
	MemRegionTypeUser   uint32 = 1 // IORING_MEM_REGION_TYPE_USER [6.13]
	MemRegionRegWaitArg uint64 = 1 // IORING_MEM_REGION_REG_WAIT_ARG [6.13]
)

// RegWaitTS marks RegWait.TS as valid (RegWait.Flags).
const RegWaitTS uint32 = 1 << 0 // IORING_REG_WAIT_TS [6.13]

// Clone-buffers flags (CloneBuffers.Flags).
const (
	RegisterSrcRegistered uint32 = 1 << 0 // IORING_REGISTER_SRC_REGISTERED [6.12]
	RegisterDstReplace    uint32 = 1 << 1 // IORING_REGISTER_DST_REPLACE [6.13]
)

// NAPI opcodes and tracking strategies (NAPI.Opcode, NAPI.OpParam).
const (
	NAPIRegisterOp       uint8  = 0   // IO_URING_NAPI_REGISTER_OP [6.13]
	NAPIStaticAddID      uint8  = 1   // IO_URING_NAPI_STATIC_ADD_ID [6.13]
	NAPIStaticDelID      uint8  = 2   // IO_URING_NAPI_STATIC_DEL_ID [6.13]
	NAPITrackingDynamic  uint32 = 0   // IO_URING_NAPI_TRACKING_DYNAMIC [6.13]
	NAPITrackingStatic   uint32 = 1   // IO_URING_NAPI_TRACKING_STATIC [6.13]
	NAPITrackingInactive uint32 = 255 // IO_URING_NAPI_TRACKING_INACTIVE [6.13]
)

// io-wq worker categories (indices of REGISTER_IOWQ_MAX_WORKERS's array).
const (
	IOWQBound   = 0 // IO_WQ_BOUND [5.15]
	IOWQUnbound = 1 // IO_WQ_UNBOUND [5.15]
)

// ProbeOpSupported is set in ProbeOp.Flags for an opcode the kernel has.
const ProbeOpSupported uint16 = 1 << 0 // IO_URING_OP_SUPPORTED [5.6]

// Query opcodes for REGISTER_QUERY (QueryHdr.QueryOp).
const (
	QueryOpcodes   uint32 = 0 // IO_URING_QUERY_OPCODES [6.18]
	QueryZcrx      uint32 = 1 // IO_URING_QUERY_ZCRX [6.19]
	QuerySCQ       uint32 = 2 // IO_URING_QUERY_SCQ [6.19]
	QueryZcrxEvent uint32 = 3 // IO_URING_QUERY_ZCRX_EVENT [7.2]
)
