//go:build linux

package reg

import (
	"runtime"

	"github.com/pure-uring/uring/sys"
)

// BPFRegisterArg is the argument RegisterBPFFilter passes the kernel.
func BPFRegisterArg(f BPFFilter, p *runtime.Pinner) (sys.BPFRegister, error) {
	return bpfRegister("RegisterBPFFilter", f, p)
}

// ZcrxCtrlArg is the argument of a ZCRX_CTRL operation.
func ZcrxCtrlArg(id, op uint32) sys.ZcrxCtrl { return zcrxCtrl(id, op) }
