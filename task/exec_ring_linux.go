//go:build linux

package task

import (
	"errors"
	"sync"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/poll"
)

// ringState is the io_uring backend of an Executor: its Core (slots,
// reap and dispatch, sleep and wake), the Core's ring, and every op
// record made (each kept on its Core slot).
type ringState struct {
	core  *poll.Core
	ring  *uring.Ring
	slots []*opSlot
	kept  map[int][]byte // per fd, bytes a multishot loop ended without yielding (kept_linux.go)
}

// defaultSpin is how long an idle executor checks the ring before it
// sleeps, unless WithSpin says otherwise.
const defaultSpin = poll.DefaultSpin

// coreOptions are the options of the executor's Core: its ring (SQ from
// WithEntries, a CQ 4x that, the caller's ring options, SINGLE_ISSUER|
// DEFER_TASKRUN with TASKRUN_FLAG where the kernel has them and its
// eventfd works with them, unless WithoutDeferTaskrun), 256 slots to
// start, the ring's eventfd for the park in Go's netpoller (unless
// WithKernelWait), and the wake eventfd for waits in io_uring_enter.
func (c *config) coreOptions() []poll.Option {
	o := []poll.Option{
		poll.WithEntries(c.entries),
		poll.WithCQEntries(min(c.entries*4, uring.MaxCQEntries)),
		poll.WithRingOptions(c.ringOpts...),
		poll.WithSlots(256),
		poll.WithKernelWake(),
	}
	if c.noDefer {
		o = append(o, poll.WithoutDeferTaskrun())
	}
	if !c.noPark {
		o = append(o, poll.WithNetPark())
	}
	return o
}

// startBackend makes the executor's ring on its thread, or the fallback
// where io_uring is not there (disabled, denied, or WithoutIOUring).
func (ex *Executor) startBackend(c *config) error {
	if b := chooseBackend(c); b.Kind == BackendFallback {
		return ex.startFallback(b.Reason)
	}
	core, err := poll.NewCore(c.coreOptions()...)
	if err != nil {
		return err
	}
	ex.core, ex.ring = core, core.Ring()
	ex.inbox.Bind(core)
	core.SetSpin(c.spin, !c.fixedSpin && core.NetPark())
	ex.backend = Backend{Kind: BackendIOUring, Reason: "io_uring is available"}
	return nil
}

// chooseBackend is the backend for c: io_uring itself missing (not in the
// kernel, kernel.io_uring_disabled, a seccomp filter that denies it) or
// WithoutIOUring means the fallback; a ring option the kernel lacks is
// the caller's error, not a reason to fall back.
func chooseBackend(c *config) Backend {
	if c.noIOUring {
		return Backend{Kind: BackendFallback, Reason: "WithoutIOUring was asked for"}
	}
	if err := uring.Available(); errors.Is(err, uring.ErrUnsupported) {
		return Backend{Kind: BackendFallback, Reason: err.Error()}
	}
	return Backend{Kind: BackendIOUring, Reason: "io_uring is available"}
}

// Ring returns the executor's ring, for registrations (files, buffers)
// made from a task on this executor; nil on the fallback backend. Do not
// submit or reap on it.
func (ex *Executor) Ring() *uring.Ring { return ex.ring }

// ringPoll submits queued SQEs, waits for a CQE when block is set and
// nothing is runnable, and dispatches what completed.
func (ex *Executor) ringPoll(block bool) {
	ex.drain()
	if ex.runnable() {
		block = false
	}
	c := ex.core
	if c.IOPoll() {
		ex.pollIOPoll(block)
		return
	}
	if !c.NetPark() {
		ex.pollKernel(block)
		return
	}
	// Submit also runs deferred completion work when the SQ flags say so.
	_, _ = ex.ring.Submit() // EBUSY/EAGAIN: reap and retry on the next poll
	if ex.reap() > 0 || !block || ex.runnable() {
		return
	}
	// Goroutines just made runnable (a SpawnOn task's end, a remote join)
	// need the P a spin or kernel wait would hold, and are queued on this
	// P: park, which gives it up at once.
	parkNow := ex.signalled
	ex.signalled = false
	ex.trimIdle(time.Now())
	c.Wait(parkNow)
	ex.reap()
}

// pollKernel is poll for an executor that blocks in io_uring_enter.
func (ex *Executor) pollKernel(block bool) {
	if block {
		ex.trimIdle(time.Now())
	}
	if block && ex.core.BeginKernelSleep() {
		_, _ = ex.ring.SubmitAndWait(1)
		ex.core.EndSleep()
	} else {
		_, _ = ex.ring.Submit() // EBUSY/EAGAIN: reap and retry on the next poll
	}
	ex.reap()
}

// pollIOPoll is poll for an executor on an IOPOLL ring, whose completions
// arrive only when it enters with GETEVENTS (the kernel then polls the
// device until one completes, never sleeping): with operations in flight
// it polls; with none it parks until a post.
func (ex *Executor) pollIOPoll(block bool) {
	if block {
		ex.trimIdle(time.Now()) // nothing to run: as the other polls do before they wait
	}
	switch {
	case block && ex.busy > 0:
		_, _ = ex.ring.SubmitAndWait(1)
	case block:
		_, _ = ex.ring.Submit()
		ex.core.ParkIdle()
	default:
		_, _ = ex.ring.Submit()
	}
	ex.reap()
}

// hasPosted reports whether work was posted to the executor (its Inbox
// raised the backend's work flag).
func (ex *Executor) hasPosted() bool {
	if ex.fb != nil {
		return ex.fb.sl.HasWork()
	}
	return ex.core.HasWork()
}

// ringStats adds the Core's and the ring's counters to s.
func (ex *Executor) ringStats(s *Stats) {
	cs := ex.core.Stats()
	s.Parks = cs.Parks + cs.NetParks + cs.Sleeps
	s.KernelWaits = cs.Sleeps
	s.Wakes = cs.Kicks
	s.CQOverflows = uint64(ex.ring.Overflow())
}

// reap dispatches the ready CQEs (to the op records, poll.Handlers) and
// returns how many there were.
func (ex *Executor) reap() int { return ex.core.Reap() }

// cancelAll cancels every operation in flight at the start of Close.
func (ex *Executor) cancelAll() {
	if ex.fb != nil {
		return // Close interrupts every task itself
	}
	ex.core.Stop() // the wake poll is not re-armed: the ring can go quiet
	ex.core.CancelAll()
}

// quiet reports whether no completion is outstanding in the backend.
func (ex *Executor) quiet() bool {
	if ex.fb != nil {
		return ex.fb.quiet()
	}
	return ex.core.Quiet()
}

// waitClosing waits briefly for completions during shutdown.
func (ex *Executor) waitClosing() {
	if ex.fb != nil {
		ex.fb.waitClosing(ex)
		return
	}
	_, _ = ex.ring.SubmitAndWaitTimeout(1, 10*time.Millisecond)
	ex.reap()
}

// keepForKernel parks the op records of operations the kernel still runs
// where the collector never frees them (their memory stays the kernel's).
func (ex *Executor) keepForKernel() {
	if ex.fb != nil {
		return // the fallback's goroutines hold their own buffers
	}
	limboMu.Lock()
	limbo = append(limbo, ex.slots)
	limboMu.Unlock()
}

var (
	limboMu sync.Mutex
	limbo   [][]*opSlot
)

// closeBackend closes the ring (or the fallback's poller).
func (ex *Executor) closeBackend() error {
	if ex.fb != nil {
		return ex.fb.close()
	}
	return ex.core.Close()
}
