//go:build linux

package feature

import (
	"sync"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

var (
	probeMu  sync.Mutex
	probeTab *sys.Probe // REGISTER_PROBE's answer, once it has succeeded
	noProbe  bool       // REGISTER_PROBE itself is unsupported (before 5.6)
)

// Op reports whether the kernel supports an opcode, from
// IORING_REGISTER_PROBE on a tiny ring (cached after the first success).
// Kernels before 5.6 have no PROBE: an opcode then counts as supported when
// the kernel release is at least the one that added it.
func Op(op sys.Op) error {
	probeMu.Lock()
	defer probeMu.Unlock()
	if probeTab == nil && !noProbe {
		r, err := newProbe(1, sys.Params{})
		if err != nil {
			return unwrapTransient(plainRingFailed(opFeature(op), err))
		}
		var p sys.Probe
		_, err = register(r.fd, sys.RegisterProbe, &p, uint32(len(p.Ops)))
		r.close()
		switch {
		case err == nil:
			probeTab = &p
		case errnoOf(err) == unix.EINVAL:
			noProbe = true
		default:
			return err
		}
	}
	if probeTab == nil {
		if op.Since() == "" {
			return unsupported(opFeature(op), "", "unknown to this package, and the kernel has no IORING_REGISTER_PROBE (5.6) to ask", nil)
		}
		if ok, err := KernelAtLeast(op.Since()); err != nil {
			return err
		} else if !ok {
			return unsupported(opFeature(op), op.Since(), "", nil)
		}
		return nil
	}
	if uint(op) < uint(probeTab.OpsLen) && probeTab.Ops[op].Flags&sys.ProbeOpSupported != 0 {
		return nil
	}
	if op > probeTab.LastOp {
		return unsupported(opFeature(op), op.Since(), "the kernel knows opcodes up to "+OpName(probeTab.LastOp), nil)
	}
	// The kernel knows the number but does not offer it: built without it
	// (CONFIG_NET, CONFIG_FUTEX, ...); no version would help.
	return unsupported(opFeature(op), "", "the kernel knows the opcode but does not support it (built without it?)", nil)
}
