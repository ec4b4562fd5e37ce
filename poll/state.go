package poll

import (
	"sync/atomic"

	"github.com/pure-uring/uring/internal/atomicx"
)

// state32 is an atomic uint32 (the Core's sleeping state) that also has a
// release store.
type state32 struct{ v uint32 }

func (s *state32) Load() uint32          { return atomic.LoadUint32(&s.v) }
func (s *state32) Store(v uint32)        { atomic.StoreUint32(&s.v, v) }
func (s *state32) StoreRelease(v uint32) { atomicx.StoreRelease32(&s.v, v) }
func (s *state32) CompareAndSwap(old, v uint32) bool {
	return atomic.CompareAndSwapUint32(&s.v, old, v)
}
