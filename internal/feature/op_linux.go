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
		r, err := setupRing(1, sys.Params{})
		if err != nil {
			return unwrapTransient(setupFailed("a ring for REGISTER_PROBE", err))
		}
		var p sys.Probe
		_, err = sys.Register(r.fd, sys.RegisterProbe, &p, uint32(len(p.Ops)))
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
			return unsupported("opcode %s: unknown, and kernel %s has no REGISTER_PROBE", op, KernelRelease())
		}
		if ok, err := KernelAtLeast(op.Since()); err != nil {
			return err
		} else if !ok {
			return unsupported("opcode %s%s: kernel %s is older", op, sinceText(op.Since()), KernelRelease())
		}
		return nil
	}
	if uint(op) < uint(probeTab.OpsLen) && probeTab.Ops[op].Flags&sys.ProbeOpSupported != 0 {
		return nil
	}
	if op > probeTab.LastOp {
		return unsupported("opcode %s%s: kernel %s knows opcodes up to %s", op, sinceText(op.Since()), KernelRelease(), probeTab.LastOp)
	}
	return unsupported("opcode %s%s: not supported by kernel %s (compiled out?)", op, sinceText(op.Since()), KernelRelease())
}
