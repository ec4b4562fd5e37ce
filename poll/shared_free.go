//go:build linux

package poll

import "sync/atomic"

// freeOps is the stack of a Shared's free operation records. A goroutine
// whose operation completed pushes its record without the Shared's lock
// (the second lock a call took was the most contended one: 128 readers
// waited 1.5 s of 4 on it, and the reaper behind them); records are
// popped under the lock, by one goroutine at a time.
type freeOps struct {
	// head: the top record's idx+1 in the low 32 bits (0: empty), a count
	// of changes in the high 32, so that a CAS never mistakes one stack
	// for another with the same top.
	head atomic.Uint64
}

func (f *freeOps) push(op *sharedOp) {
	for {
		h := f.head.Load()
		op.nextFree.Store(uint32(h))
		if f.head.CompareAndSwap(h, (h>>32+1)<<32|uint64(op.idx+1)) {
			return
		}
	}
}

// pop returns a free record of ops, or nil (the Shared's lock held).
func (f *freeOps) pop(ops []*sharedOp) *sharedOp {
	for {
		h := f.head.Load()
		top := uint32(h)
		if top == 0 {
			return nil
		}
		op := ops[top-1]
		if f.head.CompareAndSwap(h, (h>>32+1)<<32|uint64(op.nextFree.Load())) {
			return op
		}
	}
}
