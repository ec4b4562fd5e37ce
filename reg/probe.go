//go:build linux

package reg

import "github.com/pure-uring/uring/sys"

// ProbeResult is the kernel's answer to IORING_REGISTER_PROBE: which SQE
// opcodes it supports.
type ProbeResult struct {
	LastOp    sys.Op // the highest opcode the kernel knows
	supported [256]bool
}

// Supported reports whether the kernel supports op.
func (p *ProbeResult) Supported(op sys.Op) bool { return p.supported[op] }

// Ops returns the supported opcodes in order.
func (p *ProbeResult) Ops() []sys.Op {
	var ops []sys.Op
	for i, ok := range p.supported {
		if ok {
			ops = append(ops, sys.Op(i))
		}
	}
	return ops
}

// Probe asks the kernel which opcodes it supports (IORING_REGISTER_PROBE,
// Linux 5.6).
func Probe(t Target) (*ProbeResult, error) {
	pr := new(sys.Probe)
	if _, err := register(t, sys.RegisterProbe, pr, uint32(len(pr.Ops))); err != nil {
		return nil, err
	}
	res := &ProbeResult{LastOp: pr.LastOp}
	for i := 0; i < int(pr.OpsLen) && i < len(pr.Ops); i++ {
		if pr.Ops[i].Flags&sys.ProbeOpSupported != 0 {
			res.supported[pr.Ops[i].Op] = true
		}
	}
	return res, nil
}
