//go:build linux

package feature

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/pure-uring/uring/sys"
)

// opBits caches Op's answers for every opcode as bits, once they are
// final (opBuilt); until then they are zero and every question goes to
// the slow path, which builds them.
var (
	opBits  [4]atomic.Uint64
	opBuilt atomic.Bool
	opMu    sync.Mutex
)

// OpKnown reports, without locking, whether op is known to be supported:
// true is final; false means "ask Op" (it explains a lack, and its first
// call builds the mask, so the next OpKnown of a supported op is true).
// Layers that submit SQEs built by user code (poll, task) check it before
// submitting: inlined, it is one load and a bit test. When the probe
// cannot run (a transient failure) every opcode passes from then on and
// the kernel decides, rather than a probe ring being tried again.
func OpKnown(op sys.Op) bool { return opBits[op>>6].Load()&(1<<(op&63)) != 0 }

// OpMiss is Op for an opcode OpKnown did not pass: nil when it is
// supported after all (the mask was not built yet: it is now), else why
// not.
func OpMiss(op sys.Op) error {
	if !opBuilt.Load() {
		buildOpMask()
	}
	return Op(op)
}

// buildOpMask asks Op about every opcode and stores the answers; every
// opcode passes when the probe cannot run (NOP, in every kernel with
// io_uring, fails) or an answer is not "lacks it".
func buildOpMask() {
	opMu.Lock()
	defer opMu.Unlock()
	if opBuilt.Load() {
		return
	}
	mask, ok := probeOpMask()
	for i := range opBits {
		if ok {
			opBits[i].Store(mask[i])
		} else {
			opBits[i].Store(^uint64(0))
		}
	}
	opBuilt.Store(true)
}

func probeOpMask() (m [4]uint64, ok bool) {
	if Op(sys.OpNop) != nil {
		return m, false
	}
	for op := 0; op < 256; op++ {
		err := Op(sys.Op(op))
		switch {
		case err == nil:
			m[op>>6] |= 1 << (op & 63)
		case !errors.Is(err, ErrUnsupported):
			return m, false
		}
	}
	return m, true
}
