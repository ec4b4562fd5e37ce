//go:build linux

package ring

import (
	"sync"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/task/internal/iop"
)

// Config is what an executor's options say about its ring.
type Config struct {
	Entries   uint32         // SQ size; the CQ is 4x
	RingOpts  []uring.Option // the caller's ring options
	NoDefer   bool           // WithoutDeferTaskrun
	NoPark    bool           // WithKernelWait: no park in Go's netpoller
	Spin      time.Duration  // how long an idle executor checks the ring
	FixedSpin bool           // WithSpin given: no adaptive spinning
}

// coreOptions are the options of the executor's Core: its ring (SQ from
// Entries, a CQ 4x that, the caller's ring options, SINGLE_ISSUER|
// DEFER_TASKRUN with TASKRUN_FLAG where the kernel has them and its
// eventfd works with them, unless NoDefer), 256 slots to start, the ring's
// eventfd for the park in Go's netpoller (unless NoPark), and the wake
// eventfd for waits in io_uring_enter.
func (c *Config) coreOptions() []poll.Option {
	o := []poll.Option{
		poll.WithEntries(c.Entries),
		poll.WithCQEntries(min(c.Entries*4, uring.MaxCQEntries)),
		poll.WithRingOptions(c.RingOpts...),
		poll.WithSlots(256),
		poll.WithKernelWake(),
	}
	if c.NoDefer {
		o = append(o, poll.WithoutDeferTaskrun())
	}
	if !c.NoPark {
		o = append(o, poll.WithNetPark())
	}
	return o
}

// Backend is the io_uring backend of one executor: its Core (slots, reap
// and dispatch, sleep and wake), the Core's ring, and every op record made
// (each kept on its Core slot).
type Backend struct {
	sched  iop.Sched
	core   *poll.Core
	ring   *uring.Ring
	slots  []*slot
	kept   map[int]keptBytes // per fd, bytes a multishot loop ended without yielding (kept.go)
	sqFull uint64
	c      Counters
}

// Counters are what tests check of the backend (executor thread).
type Counters struct {
	Arms      int // multishot requests armed (first time and re-armed)
	Rearms    int // of which after ENOBUFS
	PutErrs   int // buffers a multishot iteration failed to put back (never expected)
	KeptBytes int // bytes kept for the fd's next read after a multishot loop ended
	KeptStale int // bytes dropped: the fd no longer named their file, or it could not be identified
	CacheHits int // ReadCached calls served by the page cache without the ring
}

// New makes the ring backend on the calling (executor's, locked) thread.
func New(cfg Config, s iop.Sched) (*Backend, error) {
	core, err := poll.NewCore(cfg.coreOptions()...)
	if err != nil {
		return nil, err
	}
	core.SetSpin(cfg.Spin, !cfg.FixedSpin && core.NetPark())
	return &Backend{sched: s, core: core, ring: core.Ring()}, nil
}

// Ring is the executor's ring (Executor.Ring).
func (r *Backend) Ring() *uring.Ring { return r.ring }

// Core is the executor's Core (tests).
func (r *Backend) Core() *poll.Core { return r.core }

// Counters returns the backend's counters (tests).
func (r *Backend) Counters() Counters { return r.c }

// RaiseWork, Wake and TakeWork make the Core the Waker of the executor's
// Inbox.
func (r *Backend) RaiseWork()     { r.core.RaiseWork() }
func (r *Backend) Wake()          { r.core.Wake() }
func (r *Backend) TakeWork() bool { return r.core.TakeWork() }

// HasWork reports whether work was posted to the executor.
func (r *Backend) HasWork() bool { return r.core.HasWork() }

// Poll submits queued SQEs, waits for a CQE when block is set and nothing
// is runnable, and dispatches what completed.
func (r *Backend) Poll(block bool) {
	r.sched.Drain()
	if r.sched.Runnable() {
		block = false
	}
	c := r.core
	if c.IOPoll() {
		r.pollIOPoll(block)
		return
	}
	if !c.NetPark() {
		r.pollKernel(block)
		return
	}
	// Submit also runs deferred completion work when the SQ flags say so.
	_, _ = r.ring.Submit() // EBUSY/EAGAIN: reap and retry on the next poll
	if r.reap() > 0 || !block || r.sched.Runnable() {
		return
	}
	// Goroutines just made runnable (a SpawnOn task's end, a remote join)
	// need the P a spin or kernel wait would hold, and are queued on this
	// P: park, which gives it up at once.
	parkNow := r.sched.Signalled()
	r.sched.Trim(time.Now())
	c.Wait(parkNow)
	r.reap()
}

// pollKernel is Poll for an executor that blocks in io_uring_enter.
func (r *Backend) pollKernel(block bool) {
	slept := false
	if block {
		r.sched.Trim(time.Now())
		slept, _ = r.core.SleepInKernel() // it submits, too
	}
	if !slept {
		_, _ = r.ring.Submit() // EBUSY/EAGAIN: reap and retry on the next poll
	}
	r.reap()
}

// pollIOPoll is Poll for an executor on an IOPOLL ring, whose completions
// arrive only when it enters with GETEVENTS (the kernel then polls the
// device until one completes, never sleeping): with operations in flight
// it polls; with none it parks until a post.
func (r *Backend) pollIOPoll(block bool) {
	if block {
		r.sched.Trim(time.Now()) // nothing to run: as the other polls do before they wait
	}
	switch {
	case block && r.core.InFlight() > 0:
		_, _ = r.ring.SubmitAndWait(1)
	case block:
		_, _ = r.ring.Submit()
		r.core.ParkIdle()
	default:
		_, _ = r.ring.Submit()
	}
	r.reap()
}

// reap dispatches the ready CQEs (to the op records, poll.Handlers) and
// returns how many there were.
func (r *Backend) reap() int { return r.core.Reap() }

// Stats adds the Core's and the ring's counters to s.
func (r *Backend) Stats(s *iop.Stats) {
	cs := r.core.Stats()
	s.Parks = cs.Parks + cs.NetParks + cs.Sleeps
	s.KernelWaits = cs.Sleeps
	s.Wakes = cs.Kicks
	s.SQFullWaits = r.sqFull
	s.CQOverflows = uint64(r.ring.Overflow())
}

// Busy is the number of operations in flight: the Core's count, the one
// count of slots in use.
func (r *Backend) Busy() int { return r.core.InFlight() }

// CancelAll cancels every operation in flight at the start of Close.
func (r *Backend) CancelAll() {
	r.core.Stop() // the wake poll is not re-armed: the ring can go quiet
	r.core.CancelAll()
}

// Quiet reports whether no completion is outstanding in the Core.
func (r *Backend) Quiet() bool { return r.core.Quiet() }

// WaitClosing waits briefly for completions during shutdown.
func (r *Backend) WaitClosing() {
	_, _ = r.ring.SubmitAndWaitTimeout(1, 10*time.Millisecond)
	r.reap()
}

// Abandon parks the op records of operations the kernel still runs where
// the collector never frees them (their memory stays the kernel's).
func (r *Backend) Abandon() {
	limboMu.Lock()
	limbo = append(limbo, r.slots)
	limboMu.Unlock()
}

var (
	limboMu sync.Mutex
	limbo   [][]*slot
)

// Close closes the ring.
func (r *Backend) Close() error { return r.core.Close() }

// Retry is never asked for: the ring never answers Again.
func (r *Backend) Retry(w *iop.Waiter, stop error) iop.Status {
	if stop == nil {
		stop = iop.ErrClosed
	}
	return w.Finish(0, stop)
}

// Tokens returns the user_data of the op records' slots, those free and
// those in use (tests).
func (r *Backend) Tokens() (free, inUse []uint64) {
	for _, sl := range r.slots {
		if sl.inUse {
			inUse = append(inUse, sl.ud())
		} else {
			free = append(free, sl.ud())
		}
	}
	return free, inUse
}

// KeepForTest keeps data for fd's next read, as the end of a multishot
// loop of the file fd names now does (tests).
func (r *Backend) KeepForTest(fd int, data []byte) { r.keep(fd, identify(fd), data) }

// KeptFds is the number of fds with bytes kept (tests).
func (r *Backend) KeptFds() int { return len(r.kept) }
