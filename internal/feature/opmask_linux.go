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
// The mask is built on the first call; when the probe cannot run then (a
// transient failure), every opcode passes from then on and the kernel
// decides, rather than a probe ring being tried again on every call.
func OpKnown(op sys.Op) bool {
	m := opMask.Load()
	if m == nil {
		m = buildOpMask()
	}
	return m[op>>6]&(1<<(op&63)) != 0
}

// allOps passes every opcode.
var allOps = [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}

// buildOpMask asks Op about every opcode and stores the answers; allOps
// when the probe cannot run (NOP, in every kernel with io_uring, fails) or
// an answer is not "lacks it".
func buildOpMask() *[4]uint64 {
	m := &allOps
	if mask, ok := probeOpMask(); ok {
		m = &mask
	}
	opMask.Store(m)
	return m
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
