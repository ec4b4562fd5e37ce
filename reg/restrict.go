//go:build linux

package reg

import (
	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// Policy is what a restricted ring may do (IORING_REGISTER_RESTRICTIONS,
// Linux 5.10). Everything not listed is refused: an SQE with another opcode
// or flag completes with EACCES, a register call with another opcode fails
// with EACCES.
type Policy struct {
	Ops         []sys.Op         // SQE opcodes allowed
	RegisterOps []sys.RegisterOp // io_uring_register opcodes allowed once enabled
	SQEFlags    sys.SQEFlags     // SQE flags allowed
	Required    sys.SQEFlags     // SQE flags every SQE must carry
}

// Restrictions encodes p for the kernel.
func (p Policy) Restrictions() []sys.Restriction {
	var rs []sys.Restriction
	for _, op := range p.Ops {
		rs = append(rs, sys.Restriction{Opcode: sys.RestrictionSQEOp, Arg: uint8(op)})
	}
	for _, op := range p.RegisterOps {
		rs = append(rs, sys.Restriction{Opcode: sys.RestrictionRegisterOp, Arg: uint8(op)})
	}
	if p.SQEFlags != 0 {
		rs = append(rs, sys.Restriction{Opcode: sys.RestrictionSQEFlagsAllowed, Arg: uint8(p.SQEFlags)})
	}
	if p.Required != 0 {
		rs = append(rs, sys.Restriction{Opcode: sys.RestrictionSQEFlagsRequired, Arg: uint8(p.Required)})
	}
	return rs
}

func (p Policy) check(fn string) error {
	for i, op := range p.Ops {
		if op >= sys.OpLast {
			return argErr(fn, "Ops["+itoa(i)+"]", equ(uint64(op))+" is not an opcode")
		}
	}
	for i, op := range p.RegisterOps {
		if op >= sys.RegisterOpLast {
			return argErr(fn, "RegisterOps["+itoa(i)+"]", equ(uint64(op))+" is not a register opcode")
		}
	}
	if len(p.Ops)+len(p.RegisterOps) == 0 {
		return argErr(fn, "policy", "allows nothing")
	}
	return nil
}

// RegisterRestrictions installs p on a ring created disabled
// (uring.WithDisabled); they take effect when the ring is enabled. It can
// be done once per ring.
func RegisterRestrictions(t Target, p Policy) error {
	if err := p.check("RegisterRestrictions"); err != nil {
		return err
	}
	rs := p.Restrictions()
	_, err := register(t, sys.RegisterRestrictions, &rs[0], uint32(len(rs)))
	return err
}

// EnableRings starts a ring created disabled (IORING_REGISTER_ENABLE_RINGS,
// Linux 5.10). uring.Ring.Enable does the same.
func EnableRings(t Target) error {
	_, err := registerNil(t, sys.RegisterEnableRings, 0)
	return err
}

// NewRestricted creates a least-privilege ring: created disabled, p
// installed, then enabled. opts must not include WithDisabled (it is
// added).
func NewRestricted(entries uint32, p Policy, opts ...uring.Option) (*uring.Ring, error) {
	if err := p.check("NewRestricted"); err != nil {
		return nil, err
	}
	r, err := uring.New(entries, append(opts[:len(opts):len(opts)], uring.WithDisabled())...)
	if err != nil {
		return nil, err
	}
	if err := RegisterRestrictions(r, p); err != nil {
		_ = r.Close()
		return nil, err
	}
	if err := EnableRings(r); err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}
