//go:build linux

package fileio

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/argerr"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sys"
)

// Rings is a set of io_uring rings that goroutines share for file I/O
// (poll.Shared each): a call takes the first ring holding fewer than
// packDepth of the Rings' operations, or the least loaded. Without
// io_uring the Rings run every call on plain system calls (Fallback says
// why). Safe for concurrent use.
type Rings struct {
	rings    []*poll.Shared
	load     []ringLoad // operations in flight on each ring (counted with more than one ring)
	fallback error      // why there are no rings; nil on io_uring
	closed   atomic.Bool

	directWrites atomic.Int32  // O_DIRECT WriteAt calls in flight (File.pwrite)
	ringWrites   atomic.Uint64 // of them, those that went through a ring
}

// DefaultEntries is the SQ size of each of Default's rings.
const DefaultEntries = 256

// NewRings starts n rings of entries SQEs each (1..uring.MaxEntries);
// fewer when the kernel refuses more once one started (see Len). Where
// io_uring is unavailable (the kernel lacks it, io_uring_disabled,
// a seccomp filter, too little locked memory) it returns Rings that run
// on plain system calls, with the reason in Fallback, and no error: the
// files work either way. An error is only for a bad argument.
func NewRings(n int, entries uint32) (*Rings, error) {
	if n < 1 {
		return nil, &argerr.OptionError{Option: "fileio.NewRings", Reason: fmt.Sprintf("n = %d: want at least 1 ring", n)}
	}
	if entries == 0 || entries > uring.MaxEntries {
		return nil, &argerr.OptionError{Option: "fileio.NewRings", Reason: fmt.Sprintf("entries = %d is outside 1..%d", entries, uring.MaxEntries)}
	}
	r := &Rings{rings: make([]*poll.Shared, 0, n), load: make([]ringLoad, n)}
	for range n {
		s, err := poll.NewShared(entries)
		if err != nil {
			if len(r.rings) == 0 {
				return &Rings{fallback: err}, nil
			}
			break // fewer rings: kernels before 5.12 charge each to RLIMIT_MEMLOCK
		}
		r.rings = append(r.rings, s)
	}
	return r, nil
}

// Len is the number of rings: n, or fewer when the kernel refused more
// (before 5.12 each ring counts against RLIMIT_MEMLOCK), or 0 on the
// fallback.
func (r *Rings) Len() int {
	if r.closed.Load() {
		return 0
	}
	return len(r.rings)
}

var (
	defaultOnce  sync.Once
	defaultRings *Rings
)

// Default returns the package's own rings, which the package-level
// functions use: started on first use, one ring for every two Ps
// (GOMAXPROCS at that time, at least one) of DefaultEntries SQEs, and
// never closed.
func Default() *Rings {
	defaultOnce.Do(func() {
		n := max(1, (runtime.GOMAXPROCS(0)+1)/2)
		defaultRings, _ = NewRings(n, DefaultEntries) // arguments valid: no error
	})
	return defaultRings
}

// Fallback reports why these Rings run on plain system calls; nil when
// they run on io_uring.
func (r *Rings) Fallback() error {
	if r.closed.Load() {
		return uring.ErrClosed
	}
	return r.fallback
}

// ringLoad is one ring's count of operations in flight, on a cache line
// of its own.
type ringLoad struct {
	n atomic.Int32
	_ [60]byte
}

// packDepth is how many operations a ring takes before the next ring
// gets new ones. Packed, a few reads in flight share one ring, whose
// reaper submits and reaps them in batches and whose enters they need not
// wake; spread in turn over every ring, each ring held one or two, and
// each read paid a wake of a sleeping reaper (4 rings on 2 CPUs,
// O_DIRECT reads of a loop device, alternating with round-robin: 4
// readers 1.6-2.0x the reads/s at 0.53-0.58x the CPU per read, 16
// readers 1.4x at 0.65-0.67x, 128 the same). Past packDepth on every
// ring the least loaded takes them.
const packDepth = 16

// pick returns the index of the ring for n operations about to start,
// counted in its load until done; -1 when there is none (the fallback,
// or closed).
func (r *Rings) pick(n int32) int {
	if len(r.rings) == 0 || r.closed.Load() {
		return -1
	}
	if len(r.rings) == 1 {
		return 0 // no shared counter for every call to bounce between CPUs
	}
	best, low := 0, int32(math.MaxInt32)
	for i := range r.rings {
		l := r.load[i].n.Load()
		if l < packDepth {
			best = i
			break
		}
		if l < low {
			best, low = i, l
		}
	}
	r.load[best].n.Add(n)
	return best
}

// done takes n operations that pick counted off ring i's load.
func (r *Rings) done(i int, n int32) {
	if len(r.rings) > 1 {
		r.load[i].n.Add(-n)
	}
}

// do runs one operation on a ring (see poll.Shared.Do); ok is false when
// no ring took it (the fallback, or the rings are closed or broken): the
// caller makes the plain system call instead.
func (r *Rings) do(prep func(q *sys.SQE) error, keep []byte) (res int32, ok bool) {
	i := r.pick(1)
	if i < 0 {
		return 0, false
	}
	defer r.done(i, 1)
	res, _, err := r.rings[i].Do(prep, keep)
	return res, err == nil
}

// doBatch runs len(res) operations on one ring (see poll.Shared.DoBatch);
// ok is false when no ring took them or DoBatch failed: the caller makes
// the plain system calls instead.
func (r *Rings) doBatch(res []int32, prep func(i int, q *sys.SQE) error, keep func(i int) []byte) (ok bool) {
	i := r.pick(int32(len(res)))
	if i < 0 {
		return false
	}
	defer r.done(i, int32(len(res)))
	return r.rings[i].DoBatch(res, prep, keep) == nil
}

// Close closes the rings once the operations in flight on them completed.
// Files opened on them keep working, on plain system calls, until they
// are closed. Closing Default's rings is allowed and has the same effect.
// A second Close returns uring.ErrClosed.
func (r *Rings) Close() error {
	if r.closed.Swap(true) {
		return uring.ErrClosed
	}
	var first error
	for _, s := range r.rings {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
