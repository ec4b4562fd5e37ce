package sys

import (
	"strconv"
	"strings"
)

// RegisterOp is an io_uring_register(2) opcode (enum io_uring_register_op).
type RegisterOp uint32

const (
	RegisterBuffers           RegisterOp = 0       // IORING_REGISTER_BUFFERS [5.1]
	UnregisterBuffers         RegisterOp = 1       // IORING_UNREGISTER_BUFFERS [5.1]
	RegisterFiles             RegisterOp = 2       // IORING_REGISTER_FILES [5.1]
	UnregisterFiles           RegisterOp = 3       // IORING_UNREGISTER_FILES [5.1]
	RegisterEventfd           RegisterOp = 4       // IORING_REGISTER_EVENTFD [5.2]
	UnregisterEventfd         RegisterOp = 5       // IORING_UNREGISTER_EVENTFD [5.2]
	RegisterFilesUpdate       RegisterOp = 6       // IORING_REGISTER_FILES_UPDATE [5.5]
	RegisterEventfdAsync      RegisterOp = 7       // IORING_REGISTER_EVENTFD_ASYNC [5.6]
	RegisterProbe             RegisterOp = 8       // IORING_REGISTER_PROBE [5.6]
	RegisterPersonality       RegisterOp = 9       // IORING_REGISTER_PERSONALITY [5.6]
	UnregisterPersonality     RegisterOp = 10      // IORING_UNREGISTER_PERSONALITY [5.6]
	RegisterRestrictions      RegisterOp = 11      // IORING_REGISTER_RESTRICTIONS [5.10]
	RegisterEnableRings       RegisterOp = 12      // IORING_REGISTER_ENABLE_RINGS [5.10]
	RegisterFiles2            RegisterOp = 13      // IORING_REGISTER_FILES2 [5.13]
	RegisterFilesUpdate2      RegisterOp = 14      // IORING_REGISTER_FILES_UPDATE2 [5.13]
	RegisterBuffers2          RegisterOp = 15      // IORING_REGISTER_BUFFERS2 [5.13]
	RegisterBuffersUpdate     RegisterOp = 16      // IORING_REGISTER_BUFFERS_UPDATE [5.13]
	RegisterIOWQAff           RegisterOp = 17      // IORING_REGISTER_IOWQ_AFF [5.14]
	UnregisterIOWQAff         RegisterOp = 18      // IORING_UNREGISTER_IOWQ_AFF [5.14]
	RegisterIOWQMaxWorkers    RegisterOp = 19      // IORING_REGISTER_IOWQ_MAX_WORKERS [5.15]
	RegisterRingFds           RegisterOp = 20      // IORING_REGISTER_RING_FDS [5.18]
	UnregisterRingFds         RegisterOp = 21      // IORING_UNREGISTER_RING_FDS [5.18]
	RegisterPbufRing          RegisterOp = 22      // IORING_REGISTER_PBUF_RING [5.19]
	UnregisterPbufRing        RegisterOp = 23      // IORING_UNREGISTER_PBUF_RING [5.19]
	RegisterSyncCancel        RegisterOp = 24      // IORING_REGISTER_SYNC_CANCEL [6.0]
	RegisterFileAllocRange    RegisterOp = 25      // IORING_REGISTER_FILE_ALLOC_RANGE [6.0]
	RegisterPbufStatus        RegisterOp = 26      // IORING_REGISTER_PBUF_STATUS [6.8]
	RegisterNAPI              RegisterOp = 27      // IORING_REGISTER_NAPI [6.9]
	UnregisterNAPI            RegisterOp = 28      // IORING_UNREGISTER_NAPI [6.9]
	RegisterClock             RegisterOp = 29      // IORING_REGISTER_CLOCK [6.12]
	RegisterCloneBuffers      RegisterOp = 30      // IORING_REGISTER_CLONE_BUFFERS [6.12]
	RegisterSendMsgRing       RegisterOp = 31      // IORING_REGISTER_SEND_MSG_RING [6.13]
	RegisterZcrxIfq           RegisterOp = 32      // IORING_REGISTER_ZCRX_IFQ [6.15]
	RegisterResizeRings       RegisterOp = 33      // IORING_REGISTER_RESIZE_RINGS [6.13]
	RegisterMemRegion         RegisterOp = 34      // IORING_REGISTER_MEM_REGION [6.13]
	RegisterQuery             RegisterOp = 35      // IORING_REGISTER_QUERY [6.18]
	RegisterZcrxCtrl          RegisterOp = 36      // IORING_REGISTER_ZCRX_CTRL [6.19]
	RegisterBPFFilter         RegisterOp = 37      // IORING_REGISTER_BPF_FILTER [7.0]
	RegisterUseRegisteredRing RegisterOp = 1 << 31 // IORING_REGISTER_USE_REGISTERED_RING [6.3]
)

var registerOpNames = [...]string{
	"REGISTER_BUFFERS", "UNREGISTER_BUFFERS", "REGISTER_FILES",
	"UNREGISTER_FILES", "REGISTER_EVENTFD", "UNREGISTER_EVENTFD",
	"REGISTER_FILES_UPDATE", "REGISTER_EVENTFD_ASYNC", "REGISTER_PROBE",
	"REGISTER_PERSONALITY", "UNREGISTER_PERSONALITY", "REGISTER_RESTRICTIONS",
	"REGISTER_ENABLE_RINGS", "REGISTER_FILES2", "REGISTER_FILES_UPDATE2",
	"REGISTER_BUFFERS2", "REGISTER_BUFFERS_UPDATE", "REGISTER_IOWQ_AFF",
	"UNREGISTER_IOWQ_AFF", "REGISTER_IOWQ_MAX_WORKERS", "REGISTER_RING_FDS",
	"UNREGISTER_RING_FDS", "REGISTER_PBUF_RING", "UNREGISTER_PBUF_RING",
	"REGISTER_SYNC_CANCEL", "REGISTER_FILE_ALLOC_RANGE", "REGISTER_PBUF_STATUS",
	"REGISTER_NAPI", "UNREGISTER_NAPI", "REGISTER_CLOCK",
	"REGISTER_CLONE_BUFFERS", "REGISTER_SEND_MSG_RING", "REGISTER_ZCRX_IFQ",
	"REGISTER_RESIZE_RINGS", "REGISTER_MEM_REGION", "REGISTER_QUERY",
	"REGISTER_ZCRX_CTRL", "REGISTER_BPF_FILTER",
}

var registerOpSince = [...]string{
	"5.1", "5.1", "5.1", "5.1", "5.2", "5.2", "5.5", "5.6", "5.6", "5.6", "5.6",
	"5.10", "5.10", "5.13", "5.13", "5.13", "5.13", "5.14", "5.14", "5.15",
	"5.18", "5.18", "5.19", "5.19", "6.0", "6.0", "6.8", "6.9", "6.9", "6.12",
	"6.12", "6.13", "6.15", "6.13", "6.13", "6.18", "6.19", "7.0",
}

// RegisterOpLast is one past the highest register opcode this package knows.
const RegisterOpLast RegisterOp = 38 // IORING_REGISTER_LAST [7.0]

// String names the opcode ("REGISTER_FILES"), with "|USE_REGISTERED_RING"
// when that bit is set.
func (o RegisterOp) String() string {
	suffix := ""
	if o&RegisterUseRegisteredRing != 0 {
		suffix = "|USE_REGISTERED_RING"
		o &^= RegisterUseRegisteredRing
	}
	if int(o) < len(registerOpNames) {
		return registerOpNames[o] + suffix
	}
	return "REGISTER_OP_" + strconv.Itoa(int(o)) + suffix
}

// Since returns the Linux release that added the opcode, or "". With
// USE_REGISTERED_RING it is the later of the opcode's release and 6.3,
// which added that flag.
func (o RegisterOp) Since() string {
	flag := o&RegisterUseRegisteredRing != 0
	o &^= RegisterUseRegisteredRing
	if int(o) >= len(registerOpSince) {
		return ""
	}
	if s := registerOpSince[o]; !flag || releaseAfter(s, "6.3") {
		return s
	}
	return "6.3"
}

// releaseAfter reports whether release a ("6.13") is later than b ("6.3").
func releaseAfter(a, b string) bool {
	am, an, _ := strings.Cut(a, ".")
	bm, bn, _ := strings.Cut(b, ".")
	x, _ := strconv.Atoi(am)
	y, _ := strconv.Atoi(bm)
	if x != y {
		return x > y
	}
	x, _ = strconv.Atoi(an)
	y, _ = strconv.Atoi(bn)
	return x > y
}
