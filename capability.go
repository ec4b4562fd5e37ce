package uring

import "github.com/pure-uring/uring/internal/feature"

// Capability is something the library and its users need that is not one
// bit of the kernel's tables of opcodes, setup flags, feature bits,
// register opcodes and enter flags: a flag of one opcode or registration,
// or an opcode that is only useful in a form a later release added. Each
// has a try-and-see probe (CheckCapability) and the release that added it
// (Since); String is a short name, CName the kernel's name for it.
type Capability int

// The capabilities, with the release that added each.
const (
	// CapMultishotPoll: IORING_POLL_ADD_MULTI on POLL_ADD, one request
	// posting a CQE per readiness event (5.13).
	CapMultishotPoll = Capability(feature.CapMultishotPoll)
	// CapMultishotAccept: IORING_ACCEPT_MULTISHOT on ACCEPT (5.19).
	CapMultishotAccept = Capability(feature.CapMultishotAccept)
	// CapMultishotRecv: IORING_RECV_MULTISHOT on RECV and RECVMSG, with
	// buffers from a provided-buffer group (6.0).
	CapMultishotRecv = Capability(feature.CapMultishotRecv)
	// CapMultishotTimeout: IORING_TIMEOUT_MULTISHOT on TIMEOUT (6.4).
	CapMultishotTimeout = Capability(feature.CapMultishotTimeout)
	// CapMultishotRead: IORING_OP_READ_MULTISHOT (6.7); the same answer as
	// CheckOp(sys.OpReadMultishot).
	CapMultishotRead = Capability(feature.CapMultishotRead)
	// CapCancelFlags: IORING_ASYNC_CANCEL_ALL, _FD and _ANY on ASYNC_CANCEL
	// (5.19).
	CapCancelFlags = Capability(feature.CapCancelFlags)
	// CapBufRing: provided-buffer rings, IORING_REGISTER_PBUF_RING (5.19);
	// the same answer as CheckRegisterOp(sys.RegisterPbufRing).
	CapBufRing = Capability(feature.CapBufRing)
	// CapBufRingMmap: buffer rings the kernel allocates and the
	// application maps, IOU_PBUF_RING_MMAP (6.4).
	CapBufRingMmap = Capability(feature.CapBufRingMmap)
	// CapBufRingInc: incremental buffer consumption, IOU_PBUF_RING_INC
	// (6.12).
	CapBufRingInc = Capability(feature.CapBufRingInc)
	// CapRecvSendBundle: bundle sends and receives, IORING_RECVSEND_BUNDLE
	// (6.10; the kernel reports IORING_FEAT_RECVSEND_BUNDLE).
	CapRecvSendBundle = Capability(feature.CapRecvSendBundle)
	// CapNopInjectResult: IORING_NOP_INJECT_RESULT, a NOP completing with
	// the result it carries (6.11).
	CapNopInjectResult = Capability(feature.CapNopInjectResult)
	// CapNopCQE32: IORING_NOP_CQE32, a NOP posting a 32-byte CQE (6.18).
	CapNopCQE32 = Capability(feature.CapNopCQE32)
	// CapSparseFiles: IORING_RSRC_REGISTER_SPARSE on REGISTER_FILES2, a
	// table of empty slots (5.19).
	CapSparseFiles = Capability(feature.CapSparseFiles)
	// CapSparseBuffers: IORING_RSRC_REGISTER_SPARSE on REGISTER_BUFFERS2
	// (5.19).
	CapSparseBuffers = Capability(feature.CapSparseBuffers)
	// CapRinglessMsgRing: IORING_REGISTER_SEND_MSG_RING, a MSG_RING sent
	// without a source ring (6.13); the same answer as
	// CheckRegisterOp(sys.RegisterSendMsgRing).
	CapRinglessMsgRing = Capability(feature.CapRinglessMsgRing)
	// CapSocketCmd: URING_CMD on sockets (SOCKET_URING_OP_SIOCINQ,
	// _SIOCOUTQ, _GETSOCKOPT, _SETSOCKOPT; 6.7).
	CapSocketCmd = Capability(feature.CapSocketCmd)
	// CapSocketGetsockname: SOCKET_URING_OP_GETSOCKNAME (6.19).
	CapSocketGetsockname = Capability(feature.CapSocketGetsockname)
	// CapNAPIStaticTracking: IO_URING_NAPI_TRACKING_STATIC and the NAPI
	// opcodes of REGISTER_NAPI (6.13).
	CapNAPIStaticTracking = Capability(feature.CapNAPIStaticTracking)
	// CapTimeoutETimeSuccess: IORING_TIMEOUT_ETIME_SUCCESS (5.16), a
	// TIMEOUT whose expiry does not fail its link, so the ops linked after
	// it run.
	CapTimeoutETimeSuccess = Capability(feature.CapTimeoutETimeSuccess)
)

// Capabilities lists every capability, in order.
func Capabilities() []Capability {
	fs := feature.Capabilities()
	l := make([]Capability, len(fs))
	for i, c := range fs {
		l[i] = Capability(c)
	}
	return l
}

// String returns the capability's short name ("multishot accept").
func (c Capability) String() string { return feature.Capability(c).String() }

// CName returns the kernel's name for the capability
// ("IORING_ACCEPT_MULTISHOT"), or "" for a value that is not a capability.
func (c Capability) CName() string { return feature.Capability(c).CName() }

// Since returns the Linux release that added the capability ("5.19"), or
// "" for a value that is not a capability.
func (c Capability) Since() string { return feature.Capability(c).Since() }
