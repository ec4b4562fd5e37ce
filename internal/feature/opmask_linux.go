//go:build linux

package feature

import (
	"errors"
	"sync/atomic"

	"github.com/pure-uring/uring/sys"
)

// opMask caches Op's answers for every opcode as bits, once they are final.
var opMask atomic.Pointer[[4]uint64]

// OpKnown reports, without locking, whether op may be submitted: false
// only when Op says the kernel lacks it. Layers that submit SQEs built by
// user code (poll, task) check it before submitting; Op explains a false.
// While the probe cannot run (a transient failure) every opcode passes and
// the kernel decides.
func OpKnown(op sys.Op) bool {
	m := opMask.Load()
	if m == nil {
		if m = buildOpMask(); m == nil {
			return true
		}
	}
	return m[op>>6]&(1<<(op&63)) != 0
}

// buildOpMask asks Op about every opcode; nil when the probe cannot run
// (NOP, in every kernel with io_uring, fails) or an answer is not "lacks it".
func buildOpMask() *[4]uint64 {
	if Op(sys.OpNop) != nil {
		return nil
	}
	var m [4]uint64
	for op := 0; op < 256; op++ {
		err := Op(sys.Op(op))
		switch {
		case err == nil:
			m[op>>6] |= 1 << (op & 63)
		case !errors.Is(err, ErrUnsupported):
			return nil
		}
	}
	opMask.Store(&m)
	return &m
}
