//go:build linux

package poll

import (
	"errors"
	"os"
	"runtime"
	"sync/atomic"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// Core is the completion machinery of one ring that one goroutine, locked
// to its OS thread, owns: a slot table whose tokens carry generations, the
// reap-and-dispatch of CQEs to the slots' handlers, the work flag that an
// Inbox raises when another goroutine hands the owner a message, and the
// sleep/wake protocol (a park in Go's netpoller on the ring's eventfd, a
// wait in io_uring_enter, an idle park on a channel) with its wakeups.
// Loop is built on it, and so is package task's Executor: a scheduler
// that owns a Core decides when to submit, reap and sleep; the Core makes
// each step safe.
//
// The owner's methods (everything but Wake, Stop and an Inbox's Post) must be
// called on the owner's thread. NewCore must be called there too: the
// ring may be SINGLE_ISSUER, DEFER_TASKRUN and registered to that thread.
type Core struct {
	ring   *uring.Ring
	tid    int
	iopoll bool
	sqpoll bool

	cqes     []sys.CQE
	slots    []slot
	freeHead uint32 // first free slot, or noSlot
	inflight int

	// sl holds the work flag and the kind of sleep the owner is in; a
	// waker that claims the sleep owns the wakeup it then sends.
	sl       Sleeper
	stop     atomic.Bool
	parkCh   chan struct{}
	efd      *os.File // the ring's registered eventfd (netpoll park), or nil
	efdBuf   [8]byte
	efdTimed bool   // a read deadline is set on efd
	efdLate  bool   // the eventfd signals deferred work late: ParkNetpoll waits in the kernel with work in flight
	wake     wakeFd // the kernel-sleep wakeup (its poll is armed in the ring)
	canFlag  bool   // deferred completion work shows in the SQ flags, or there is none
	reaping  bool   // Reap is dispatching: a handler's Reap returns at once
	inPlace  bool   // 16-byte CQEs: Reap dispatches them in the ring (PeekBatch)
	// cancelEach: the kernel refused CANCEL_ANY (before 5.19), CancelAll
	// cancels slot by slot.
	cancelEach bool
	closed     bool // closeRing ran
	kicks      atomic.Uint64
	wp         waitPolicy

	st CoreStats
}

// CoreStats are the Core's counters (owner thread; Kicks is the wakeups
// other goroutines sent).
type CoreStats struct {
	Reaps        uint64 `json:"reaps"`         // reaps that found CQEs
	Completed    uint64 `json:"completed"`     // CQEs delivered to handlers
	Stale        uint64 `json:"stale"`         // CQEs whose slot generation did not match (dropped)
	WakeCQEs     uint64 `json:"wake_cqes"`     // wakeup CQEs reaped (the armed poll of the wake eventfd)
	Parks        uint64 `json:"parks"`         // idle parks on the channel (nothing in flight)
	NetParks     uint64 `json:"net_parks"`     // parks in Go's netpoller on the ring's eventfd
	Sleeps       uint64 `json:"sleeps"`        // sleeps in io_uring_enter begun through BeginKernelSleep
	KernelWaits  uint64 `json:"kernel_waits"`  // of those, Wait's (adaptive or without NetPark)
	ParkTimeouts uint64 `json:"park_timeouts"` // netpoll parks that ended by their timeout
	Kicks        uint64 `json:"kicks"`         // wakeups sent by other goroutines
}

// NewCore creates the ring on the calling thread, which must be locked to
// its goroutine and stays the owner's. The options (see Option) say what
// ring it makes (WithEntries, WithCQEntries, WithRingOptions,
// WithoutDeferTaskrun), how many slots it starts with (WithSlots), and
// which sleeps it prepares besides ParkIdle (WithNetPark, WithKernelWake);
// a bad one is an *OptionError that names it. SINGLE_ISSUER,
// DEFER_TASKRUN, SUBMIT_ALL (WithSubmitAll) and the registered ring fd
// (WithRegisteredRingFd) are added only where the kernel has them, so a
// Core starts on every kernel from 5.10 on; options in WithRingOptions
// are required (setup fails where the kernel lacks one).
func NewCore(opts ...Option) (*Core, error) {
	cfg, err := newCoreConfig(opts)
	if err != nil {
		return nil, err
	}
	c := &Core{tid: sys.Gettid(), parkCh: make(chan struct{}, 1), freeHead: noSlot}
	c.wp = waitPolicy{spin: DefaultSpin, adaptive: true}
	r, err := newCoreRing(&cfg)
	if err != nil {
		return nil, err
	}
	c.ring = r
	runningCores.Add(1) // closeRing takes it back
	fl := r.SetupFlags()
	c.iopoll = fl&sys.SetupIOPoll != 0
	c.sqpoll = fl&sys.SetupSQPoll != 0
	c.canFlag = fl&sys.SetupDeferTaskrun == 0 || fl&sys.SetupTaskrunFlag != 0
	c.cqes = make([]sys.CQE, min(r.CQEntries(), 4096))
	c.inPlace = fl&(sys.SetupCQE32|sys.SetupCQEMixed) == 0
	if !c.sqpoll && !c.iopoll && fl&sys.SetupRDisabled == 0 {
		// A cold io-wq can cancel the owner's requests (see
		// reg.StartIOWorkers); without workers the Core still works. Not on
		// IOPOLL rings: on one with DEFER_TASKRUN and TASKRUN_FLAG, 6.18's
		// wait for the two io-wq completions never returned (one CQE in).
		_ = reg.StartIOWorkers(r)
	}
	c.reserve(cfg.Slots)
	if cfg.NetPark {
		if err := c.startNetPark(); err != nil {
			c.closeRing()
			return nil, err
		}
		c.efdLate = fl&sys.SetupDeferTaskrun != 0 && cfg.KernelWake && !c.iopoll &&
			errors.Is(eventfdSignalsDeferredWork(), ErrEventfdDeferTaskrunLate)
	}
	if cfg.KernelWake && !c.iopoll {
		if err := c.wake.open(); err != nil {
			c.closeRing()
			return nil, err
		}
		c.armWake()
	}
	return c, nil
}

// newCoreRing makes the ring with cfg's options plus what the kernel has
// of the optional ones.
func newCoreRing(cfg *config) (*uring.Ring, error) {
	opts := append([]uring.Option(nil), cfg.Options...)
	if cfg.CQEntries != 0 {
		opts = append(opts, uring.WithCQSize(cfg.CQEntries))
	}
	if !cfg.NoDeferTaskrun && (deferTaskrunUsable(cfg.NetPark, cfg.KernelWake) || cfg.forceDefer) {
		opts = append(opts, uring.WithSingleIssuer(), uring.WithDeferTaskrun())
		if feature.SetupFlag(sys.SetupTaskrunFlag) == nil {
			// IORING_SQ_TASKRUN says when deferred completions wait for an
			// enter, so reaping runs them without entering blindly.
			opts = append(opts, uring.WithTaskrunFlag())
		}
	}
	if cfg.SubmitAll && feature.SetupFlag(sys.SetupSubmitAll) == nil {
		opts = append(opts, uring.WithSubmitAll())
	}
	if cfg.RegisterRing && feature.RegisterOp(sys.RegisterRingFds) == nil {
		// The owner's thread never changes, so the registered ring fd is
		// valid for every enter it makes.
		opts = append(opts, uring.WithRegisteredRingFd())
	}
	return uring.New(cfg.Entries, opts...)
}

// deferTaskrunUsable reports whether DEFER_TASKRUN is both supported and,
// for an owner that parks on the ring's eventfd, safe (see
// eventfdSignalsDeferredWork): where the eventfd drops the signals, never;
// where it sends them late, only with the wake eventfd, so that
// ParkNetpoll can wait in io_uring_enter while work is in flight.
func deferTaskrunUsable(netPark, kernelWake bool) bool {
	if feature.SetupFlag(sys.SetupDeferTaskrun) != nil {
		return false
	}
	if !netPark {
		return true
	}
	switch err := eventfdSignalsDeferredWork(); {
	case err == nil:
		return true
	case errors.Is(err, ErrEventfdDeferTaskrunLate):
		return kernelWake
	default:
		return false
	}
}

// Ring returns the Core's ring (owner thread).
func (c *Core) Ring() *uring.Ring { return c.ring }

// Tid returns the owner's thread id.
func (c *Core) Tid() int { return c.tid }

// OnOwner reports whether the caller runs on the owner's thread.
func (c *Core) OnOwner() bool { return sys.Gettid() == c.tid }

// IOPoll reports whether the ring is an IOPOLL ring (its completions
// arrive only when the owner enters with GETEVENTS).
func (c *Core) IOPoll() bool { return c.iopoll }

// SQPoll reports whether a kernel thread consumes the SQ.
func (c *Core) SQPoll() bool { return c.sqpoll }

// NetPark reports whether ParkNetpoll is available.
func (c *Core) NetPark() bool { return c.efd != nil }

// Stats returns the Core's counters (owner thread).
func (c *Core) Stats() CoreStats {
	s := c.st
	s.Kicks = c.kicks.Load()
	return s
}

// Quiet reports whether no CQE is outstanding: no slot in flight and the
// wake poll not armed. A closing owner closes the ring only when quiet.
func (c *Core) Quiet() bool { return c.inflight == 0 && !c.wake.armed }

// Close releases the ring and the eventfds. Call it on the owner's
// thread once Quiet (or when the ring failed and its CQEs will never
// come), after closing the owner's Inbox.
func (c *Core) Close() error { return c.closeRing() }

func (c *Core) closeRing() error {
	if !c.closed {
		c.closed = true
		runningCores.Add(-1)
	}
	err := c.ring.Close()
	if c.efd != nil {
		_ = c.efd.Close() // the ring dropped its reference when it closed
	}
	c.wake.close()
	runtime.KeepAlive(c)
	if errors.Is(err, uring.ErrClosed) {
		err = nil
	}
	return err
}

// CancelAll cancels every request in the ring: ASYNC_CANCEL with
// CANCEL_ANY|CANCEL_ALL (5.19); where the kernel refused that, one cancel
// per slot in flight and one for the wake poll. The cancels are submitted
// at once (shutdown is not a hot path). It reports false when the SQ had
// no room (call it again later).
func (c *Core) CancelAll() bool {
	ok := c.cancelAll()
	_, _ = c.ring.Submit()
	return ok
}

func (c *Core) cancelAll() bool {
	if !c.cancelEach {
		s, err := c.ring.GetSQE()
		if err != nil {
			return false
		}
		// Its CQE's EINVAL (before 5.19) switches to cancelling one by one.
		sqe.CancelAny(s)
		s.OpFlags |= sys.AsyncCancelAll
		s.UserData = udCancelAll
		return true
	}
	for i := range c.slots {
		s := &c.slots[i]
		if s.gen&1 == 0 { // free
			continue
		}
		t := token(uint32(i), s.gen)
		for k := range max(1, int(s.size)) { // a batch: each SQE's user_data
			if !c.cancelUserData(uint64(t.At(k))) {
				return false
			}
		}
	}
	if c.wake.armed {
		return c.cancelUserData(udWakePoll)
	}
	return true
}

// cancelUserData queues an ASYNC_CANCEL of the request with user_data ud,
// submitting once to make room when the SQ is full (a batch asks for one
// cancel per SQE); false when the SQ stayed full.
func (c *Core) cancelUserData(ud uint64) bool {
	s, err := c.ring.GetSQE()
	if err != nil {
		if _, err := c.ring.Submit(); err != nil {
			return false
		}
		if s, err = c.ring.GetSQE(); err != nil {
			return false
		}
	}
	_ = sqe.Cancel(s, ud, 0) // no flags: nothing to refuse
	s.UserData = udCancel
	return true
}
