//go:build linux

package reg

import (
	"os"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
)

// OpcodeInfo is the kernel's IO_URING_QUERY_OPCODES answer: how many SQE and
// register opcodes it has and which flag bits it accepts.
type OpcodeInfo struct {
	Ops         uint32         // SQE opcodes: [0, Ops) are known
	RegisterOps uint32         // register opcodes: [0, RegisterOps) are known
	Features    sys.Features   // IORING_FEAT_* bits
	SetupFlags  sys.SetupFlags // setup flags accepted
	EnterFlags  sys.EnterFlags // enter flags accepted
	SQEFlags    sys.SQEFlags   // SQE flags accepted
	Queries     uint32         // query opcodes: [0, Queries) are known (QueryZcrx, QuerySCQ, ...)
}

// QueryOpcodes asks the kernel what it supports without a ring
// (IORING_REGISTER_QUERY with fd -1, Linux 6.18).
func QueryOpcodes() (OpcodeInfo, error) {
	q := new(sys.QueryOpcode)
	var p runtime.Pinner
	p.Pin(q)
	h := sys.QueryHdr{QueryData: sys.PtrAddr(q), QueryOp: sys.QueryOpcodes, Size: uint32(sys.SizeOf[sys.QueryOpcode]())}
	_, err := sys.Register(-1, sys.RegisterQuery, &h, 0)
	p.Unpin()
	if err == nil && h.Result < 0 {
		// The call succeeded but this entry failed: the errno is in the header.
		err = os.NewSyscallError("io_uring_register", unix.Errno(-h.Result))
	}
	if err != nil {
		return OpcodeInfo{}, wrap(sys.RegisterQuery, err)
	}
	return OpcodeInfo{
		Ops: q.NrRequestOpcodes, RegisterOps: q.NrRegisterOpcodes,
		Features: sys.Features(q.FeatureFlags), SetupFlags: sys.SetupFlags(q.RingSetupFlags),
		EnterFlags: sys.EnterFlags(q.EnterFlags), SQEFlags: sys.SQEFlags(q.SQEFlags),
		Queries: q.NrQueryOpcodes,
	}, nil
}
