//go:build linux

package reg

import (
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
)

// BPFFilter is a classic BPF program that decides, for every request of
// one opcode, whether it may run (IORING_REGISTER_BPF_FILTER, Linux 7.0).
// The program reads a sys.BPFCtx (user_data, opcode, SQE flags and the
// opcode's details in Args) and returns nonzero to allow the request, 0 to
// deny it: a denied request completes with EACCES. Filters on one opcode
// stack: every one must allow. The kernel checks the program as seccomp
// checks its filters (loads of the context, ALU and jumps only).
type BPFFilter struct {
	Op      sys.Op            // the opcode the program filters
	Program []unix.SockFilter // 1..4096 instructions
	// DenyRest denies every opcode that has no filter
	// (IO_URING_BPF_FILTER_DENY_REST).
	DenyRest bool
	// StrictSize makes the registration fail unless PduSize is the
	// kernel's size of Args for Op (IO_URING_BPF_FILTER_SZ_STRICT), so a
	// program never reads details the kernel does not fill.
	StrictSize bool
	// PduSize is the number of bytes of BPFCtx.Args the program reads
	// (0..24).
	PduSize uint8
}

// bpfMaxInsns is BPF_MAXINSNS.
const bpfMaxInsns = 4096

// bpfRegister checks f and returns the argument the kernel takes; the
// program's memory is pinned in p.
func bpfRegister(fn string, f BPFFilter, p *runtime.Pinner) (sys.BPFRegister, error) {
	switch {
	case len(f.Program) == 0 || len(f.Program) > bpfMaxInsns:
		return sys.BPFRegister{}, argErr(fn, "len(Program)", eq(len(f.Program))+" is not in [1, 4096]")
	case int(f.PduSize) > len(sys.BPFCtx{}.Args)*8:
		return sys.BPFRegister{}, argErr(fn, "PduSize", eq(int(f.PduSize))+" exceeds the 24 bytes of BPFCtx.Args")
	}
	var flags uint32
	if f.DenyRest {
		flags |= sys.BPFFilterDenyRest
	}
	if f.StrictSize {
		flags |= sys.BPFFilterSzStrict
	}
	return sys.BPFRegister{CmdType: sys.BPFCmdFilter, Filter: sys.BPFFilter{
		Opcode: uint32(f.Op), Flags: flags, FilterLen: uint32(len(f.Program)), PduSize: f.PduSize,
		FilterPtr: addrOf(p, f.Program),
	}}, nil
}

// RegisterBPFFilter installs f on the ring t: io_uring_register_bpf_filter(3)
// (liburing 2.15), IORING_REGISTER_BPF_FILTER, Linux 7.0. There is no
// unregister: the filter lives as long as the ring. Before 7.0 it returns
// an *uring.UnsupportedError.
func RegisterBPFFilter(t Target, f BPFFilter) error {
	var p runtime.Pinner
	defer p.Unpin()
	arg, err := bpfRegister("RegisterBPFFilter", f, &p)
	if err != nil {
		return err
	}
	_, err = register(t, sys.RegisterBPFFilter, &arg, 1)
	return err
}

// RegisterTaskBPFFilter installs f without a ring (fd -1), on the calling
// thread (the kernel's task; lock the goroutine to it with
// runtime.LockOSThread): every ring the thread creates from then on
// inherits it, and so do the threads and processes it starts:
// io_uring_register_bpf_filter_task(3) (liburing 2.15), Linux 7.0. It
// cannot be undone; a sandbox installs it before it runs what it confines.
// Before 7.0 it returns an *uring.UnsupportedError.
func RegisterTaskBPFFilter(f BPFFilter) error {
	var p runtime.Pinner
	defer p.Unpin()
	arg, err := bpfRegister("RegisterTaskBPFFilter", f, &p)
	if err != nil {
		return err
	}
	_, err = sys.Register(-1, sys.RegisterBPFFilter, &arg, 1)
	return wrap(sys.RegisterBPFFilter, err)
}
