//go:build linux

package fileio

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/argerr"
	"github.com/pure-uring/uring/poll"
)

// Rings is a set of io_uring rings that goroutines share for file I/O
// (poll.Shared each): a call takes the next ring in turn. Without
// io_uring the Rings run every call on plain system calls (Fallback says
// why). Safe for concurrent use.
type Rings struct {
	rings    []*poll.Shared
	next     atomic.Uint32
	fallback error // why there are no rings; nil on io_uring
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
	r := &Rings{rings: make([]*poll.Shared, 0, n)}
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

// pick returns the next ring, or nil when there is none (the fallback,
// or closed).
func (r *Rings) pick() *poll.Shared {
	if len(r.rings) == 0 || r.closed.Load() {
		return nil
	}
	if len(r.rings) == 1 {
		return r.rings[0] // no shared counter for every call to bounce between CPUs
	}
	return r.rings[r.next.Add(1)%uint32(len(r.rings))]
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
