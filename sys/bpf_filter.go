package sys

// BPF filters (include/uapi/linux/io_uring/bpf_filter.h, Linux 7.0):
// classic BPF programs registered with IORING_REGISTER_BPF_FILTER, on a
// ring or, with no ring (fd -1), on the task and the rings it creates,
// that see a BPFCtx for each SQE of one opcode and allow or deny it.

// BPFCtx is struct io_uring_bpf_ctx [7.0], the data a filter program reads.
// Args holds the opcode's details: socket (family, type, protocol: three
// __u32), open (flags, mode, resolve: three __u64) or, from 7.2, connect
// (family __u32, port __be16, pad, then v4_addr __be32 or v6_addr[16]).
type BPFCtx struct {
	UserData uint64    // user_data
	Opcode   Op        // opcode
	SQEFlags SQEFlags  // sqe_flags
	PduSize  uint8     // pdu_size: bytes of Args the kernel filled
	Pad      [5]uint8  // pad
	Args     [3]uint64 // socket | open | connect [7.2]
}

// Filter registration flags (BPFFilter.Flags).
const (
	BPFFilterDenyRest uint32 = 1 // IO_URING_BPF_FILTER_DENY_REST [7.0]: deny every opcode without a filter
	BPFFilterSzStrict uint32 = 2 // IO_URING_BPF_FILTER_SZ_STRICT [7.0]: fail when PduSize differs from the kernel's
)

// BPFFilter is struct io_uring_bpf_filter [7.0]: one program for one opcode.
type BPFFilter struct {
	Opcode    uint32    // opcode
	Flags     uint32    // flags (IO_URING_BPF_FILTER_*)
	FilterLen uint32    // filter_len: number of BPF instructions
	PduSize   uint8     // pdu_size: the BPFCtx.Args size the program expects
	Resv      [3]uint8  // resv
	FilterPtr uint64    // filter_ptr: struct sock_filter *
	Resv2     [5]uint64 // resv2
}

// BPFCmdFilter registers a BPFFilter (BPFRegister.CmdType).
const BPFCmdFilter uint16 = 1 // IO_URING_BPF_CMD_FILTER [7.0]

// BPFRegister is struct io_uring_bpf [7.0], the argument of
// IORING_REGISTER_BPF_FILTER.
type BPFRegister struct {
	CmdType  uint16    // cmd_type (IO_URING_BPF_CMD_*)
	CmdFlags uint16    // cmd_flags: 0
	Resv     uint32    // resv
	Filter   BPFFilter // filter
}
