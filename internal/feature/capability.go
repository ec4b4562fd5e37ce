package feature

import "strconv"

// Capability is something the library or its tests need that is not one
// bit of one of the kernel's tables (opcodes, setup flags, feature bits,
// register opcodes, enter flags): an opcode's flag, a registration's flag,
// or an opcode that is only useful in a form a later release added. Each
// has a try-and-see probe (Cap) and the release that added it.
type Capability int

// The capabilities, in the order uringctl lists them.
const (
	CapMultishotPoll       Capability = iota // IORING_POLL_ADD_MULTI on POLL_ADD, 5.13
	CapMultishotAccept                       // IORING_ACCEPT_MULTISHOT on ACCEPT, 5.19
	CapMultishotRecv                         // IORING_RECV_MULTISHOT on RECV, 6.0
	CapMultishotTimeout                      // IORING_TIMEOUT_MULTISHOT on TIMEOUT, 6.4
	CapMultishotRead                         // IORING_OP_READ_MULTISHOT, 6.7
	CapCancelFlags                           // IORING_ASYNC_CANCEL_ALL, _FD, _ANY on ASYNC_CANCEL, 5.19
	CapBufRing                               // IORING_REGISTER_PBUF_RING, 5.19
	CapBufRingMmap                           // IOU_PBUF_RING_MMAP: a kernel-allocated buffer ring, 6.4
	CapBufRingInc                            // IOU_PBUF_RING_INC: incremental buffer consumption, 6.12
	CapRecvSendBundle                        // IORING_RECVSEND_BUNDLE (IORING_FEAT_RECVSEND_BUNDLE), 6.10
	CapNopInjectResult                       // IORING_NOP_INJECT_RESULT on NOP, 6.11
	CapNopCQE32                              // IORING_NOP_CQE32 on NOP, 6.18
	CapSparseFiles                           // IORING_RSRC_REGISTER_SPARSE on REGISTER_FILES2, 5.19
	CapSparseBuffers                         // IORING_RSRC_REGISTER_SPARSE on REGISTER_BUFFERS2, 5.19
	CapRinglessMsgRing                       // IORING_REGISTER_SEND_MSG_RING without a source ring, 6.13
	CapSocketCmd                             // URING_CMD on sockets (SOCKET_URING_OP_SIOCINQ, ...), 6.7
	CapSocketGetsockname                     // SOCKET_URING_OP_GETSOCKNAME, 6.19
	CapNAPIStaticTracking                    // IO_URING_NAPI_TRACKING_STATIC and NAPI opcodes, 6.13
	CapTimeoutETimeSuccess                   // IORING_TIMEOUT_ETIME_SUCCESS on TIMEOUT: a link goes on after it, 5.16

	capCount // one past the last
)

// capInfo describes a capability: its short name, the kernel's name for
// it, how an UnsupportedError names it, and the release that added it.
type capInfo struct {
	name, cname, feature, since string
}

var caps = [capCount]capInfo{
	CapMultishotPoll:       {"multishot poll", "IORING_POLL_ADD_MULTI", "multishot poll (IORING_POLL_ADD_MULTI)", "5.13"},
	CapMultishotAccept:     {"multishot accept", "IORING_ACCEPT_MULTISHOT", "multishot accept (IORING_ACCEPT_MULTISHOT)", "5.19"},
	CapMultishotRecv:       {"multishot recv", "IORING_RECV_MULTISHOT", "multishot recv (IORING_RECV_MULTISHOT)", "6.0"},
	CapMultishotTimeout:    {"multishot timeout", "IORING_TIMEOUT_MULTISHOT", "multishot timeout (IORING_TIMEOUT_MULTISHOT)", "6.4"},
	CapMultishotRead:       {"multishot read", "IORING_OP_READ_MULTISHOT", "opcode IORING_OP_READ_MULTISHOT", "6.7"},
	CapCancelFlags:         {"cancel all, by fd or any", "IORING_ASYNC_CANCEL_ALL|FD|ANY", "cancel flags IORING_ASYNC_CANCEL_ALL, _FD and _ANY", "5.19"},
	CapBufRing:             {"buffer rings", "IORING_REGISTER_PBUF_RING", "register opcode IORING_REGISTER_PBUF_RING", "5.19"},
	CapBufRingMmap:         {"kernel-mapped buffer rings", "IOU_PBUF_RING_MMAP", "buffer ring flag IOU_PBUF_RING_MMAP", "6.4"},
	CapBufRingInc:          {"incremental buffer rings", "IOU_PBUF_RING_INC", "buffer ring flag IOU_PBUF_RING_INC", "6.12"},
	CapRecvSendBundle:      {"recv/send bundles", "IORING_RECVSEND_BUNDLE", "recv/send bundles (IORING_RECVSEND_BUNDLE)", "6.10"},
	CapNopInjectResult:     {"NOP result injection", "IORING_NOP_INJECT_RESULT", "NOP flag IORING_NOP_INJECT_RESULT", "6.11"},
	CapNopCQE32:            {"NOP 32-byte CQE", "IORING_NOP_CQE32", "NOP flag IORING_NOP_CQE32", "6.18"},
	CapSparseFiles:         {"sparse file tables", "IORING_RSRC_REGISTER_SPARSE", "sparse file table (IORING_RSRC_REGISTER_SPARSE)", "5.19"},
	CapSparseBuffers:       {"sparse buffer tables", "IORING_RSRC_REGISTER_SPARSE", "sparse buffer table (IORING_RSRC_REGISTER_SPARSE)", "5.19"},
	CapRinglessMsgRing:     {"ring-less MSG_RING", "IORING_REGISTER_SEND_MSG_RING", "register opcode IORING_REGISTER_SEND_MSG_RING", "6.13"},
	CapSocketCmd:           {"socket commands", "SOCKET_URING_OP_SIOCINQ", "socket command SOCKET_URING_OP_SIOCINQ (URING_CMD on a socket)", "6.7"},
	CapSocketGetsockname:   {"socket getsockname", "SOCKET_URING_OP_GETSOCKNAME", "socket command SOCKET_URING_OP_GETSOCKNAME", "6.19"},
	CapNAPIStaticTracking:  {"NAPI static tracking", "IO_URING_NAPI_TRACKING_STATIC", "NAPI tracking IO_URING_NAPI_TRACKING_STATIC", "6.13"},
	CapTimeoutETimeSuccess: {"timeout as link success", "IORING_TIMEOUT_ETIME_SUCCESS", "timeout flag IORING_TIMEOUT_ETIME_SUCCESS", "5.16"},
}

// Capabilities lists every capability, in order.
func Capabilities() []Capability {
	l := make([]Capability, capCount)
	for i := range l {
		l[i] = Capability(i)
	}
	return l
}

// Valid reports whether c is one of the constants.
func (c Capability) Valid() bool { return c >= 0 && c < capCount }

// String returns the capability's short name ("multishot accept").
func (c Capability) String() string {
	if !c.Valid() {
		return "capability " + strconv.Itoa(int(c))
	}
	return caps[c].name
}

// CName returns the kernel's name for the capability
// ("IORING_ACCEPT_MULTISHOT"), or "" for an unknown one.
func (c Capability) CName() string {
	if !c.Valid() {
		return ""
	}
	return caps[c].cname
}

// Since returns the Linux release that added the capability ("5.19"), or
// "" for an unknown one.
func (c Capability) Since() string {
	if !c.Valid() {
		return ""
	}
	return caps[c].since
}

// feature is how an UnsupportedError names the capability.
func (c Capability) feature() string {
	if !c.Valid() {
		return c.String()
	}
	return caps[c].feature
}
