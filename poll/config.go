//go:build linux

package poll

import (
	"fmt"
	"github.com/pure-uring/uring/internal/argerr"
	"time"

	"github.com/pure-uring/uring"
)

// Strategy is how a Loop waits for completions.
type Strategy int

const (
	// Park (the default) submits without waiting and waits in Go's
	// netpoller, on an eventfd registered with the ring
	// (IORING_REGISTER_EVENTFD), instead of in io_uring_enter: while it
	// waits, its P runs other goroutines at once (a loop blocked in the
	// kernel keeps its P until the runtime's sysmon retakes it, 20µs to
	// 10ms later, which starves goroutines at GOMAXPROCS=1 or with as many
	// loops as Ps). Wakeups from other goroutines write the same eventfd.
	// WaitBatch and MinWait do not apply.
	Park Strategy = iota
	// Block waits in the kernel (io_uring_enter with GETEVENTS and an
	// EXT_ARG timeout) as soon as nothing is ready.
	Block
	// Spin polls the CQ tail in user space, without a syscall, for up to
	// WithSpinBudget empty polls, then blocks like Block.
	Spin
	// Hybrid spins for WithSpinTime, then blocks.
	Hybrid
	// IOPoll uses an IOPOLL ring and reaps by entering with GETEVENTS (the
	// kernel polls the device); it never sleeps in the kernel.
	IOPoll
	// HybridIOPoll is IOPoll with IORING_SETUP_HYBRID_IOPOLL (Linux 6.13).
	HybridIOPoll
	// SQPoll uses a kernel SQ thread: submitting needs no syscall unless
	// the thread sleeps; completions are spun for, then waited for.
	SQPoll
)

var strategyNames = [...]string{"park", "block", "spin", "hybrid", "iopoll", "hybrid-iopoll", "sqpoll"}

func (s Strategy) String() string {
	if s >= 0 && int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// Strategies lists every strategy.
var Strategies = []Strategy{Park, Block, Spin, Hybrid, IOPoll, HybridIOPoll, SQPoll}

// Option configures a Loop (New) or a Core (NewCore): one option type,
// one definition of each setting. Some options configure both (the ring:
// WithEntries, WithCQEntries, WithRingOptions, WithoutDeferTaskrun, and
// WithSlots), some only a Loop (how it waits: WithStrategy, WithSpinBudget,
// WithSpinTime, WithWaitTimeout, WithWaitBatch, WithSQPollIdle), some only
// a Core (what a Loop's strategy picks by itself: WithNetPark,
// WithKernelWake, WithSubmitAll, WithRegisteredRingFd); an option given
// to the constructor it does not configure is an *OptionError.
//
// Without options a Loop is a Park loop on a 256-entry ring with
// SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG where the kernel has them; a
// Core is the same ring with 1024 slots and no sleep but ParkIdle
// prepared.
type Option func(*config)

// config is what the options set.
type config struct {
	// The Core's settings (a Loop passes them on to its Core).
	Entries        uint32
	CQEntries      uint32
	Options        []uring.Option
	NoDeferTaskrun bool
	Slots          int
	NetPark        bool
	KernelWake     bool
	SubmitAll      bool
	RegisterRing   bool
	forceDefer     bool // tests: DEFER_TASKRUN even where the eventfd loses its wakeups

	// The Loop's settings.
	Strategy    Strategy
	SpinBudget  int
	SpinTime    time.Duration
	WaitTimeout time.Duration
	WaitBatch   uint32
	MinWait     time.Duration
	SQPollIdle  time.Duration

	bad      argerr.Options // bad option arguments, reported by New and NewCore
	loopOnly string         // the first Loop-only option given (NewCore refuses it)
	coreOnly string         // the first Core-only option given (New refuses it)
}

// loopOption marks an option that configures only a Loop.
func (c *config) loopOption(name string) {
	if c.loopOnly == "" {
		c.loopOnly = name
	}
}

// coreOption marks an option that configures only a Core.
func (c *config) coreOption(name string) {
	if c.coreOnly == "" {
		c.coreOnly = name
	}
}

// WithStrategy sets how the loop waits for completions (default Park).
// Loop only.
func WithStrategy(s Strategy) Option {
	return func(c *config) {
		c.loopOption("WithStrategy")
		if s < Park || s > SQPoll {
			c.bad.Bad("WithStrategy", fmt.Sprintf("s = %d is not a strategy", int(s)))
		}
		c.Strategy = s
	}
}

// WithEntries sets the SQ size (default 256; at most uring.MaxEntries).
func WithEntries(n uint32) Option {
	return func(c *config) {
		if n > uring.MaxEntries {
			c.bad.Bad("WithEntries", fmt.Sprintf("n = %d exceeds %d", n, uring.MaxEntries))
		}
		c.Entries = n
	}
}

// WithCQEntries sets the CQ size (default: the kernel's, twice the SQ);
// it must not be smaller than the SQ nor larger than uring.MaxCQEntries.
func WithCQEntries(n uint32) Option {
	return func(c *config) {
		if n > uring.MaxCQEntries {
			c.bad.Bad("WithCQEntries", fmt.Sprintf("n = %d exceeds %d", n, uring.MaxCQEntries))
		}
		c.CQEntries = n
	}
}

// WithRingOptions adds ring options after the ones the strategy picks (do
// not repeat WithSQPoll/WithIOPoll here); a Core's ring fails to set up
// when the kernel lacks one.
func WithRingOptions(opts ...uring.Option) Option {
	return func(c *config) {
		for i, o := range opts {
			if o == nil {
				c.bad.Bad("WithRingOptions", fmt.Sprintf("opts[%d] is nil", i))
			}
		}
		c.Options = append(c.Options, opts...)
	}
}

// WithoutDeferTaskrun leaves out SINGLE_ISSUER|DEFER_TASKRUN (a Loop
// always leaves them out under SQPoll, which excludes DEFER_TASKRUN).
// Without it they are taken, with TASKRUN_FLAG, where the kernel has them
// and, for a Core that parks on its eventfd, where that eventfd keeps its
// wakeups with them.
func WithoutDeferTaskrun() Option { return func(c *config) { c.NoDeferTaskrun = true } }

// WithSpinBudget sets how many empty CQ polls Spin and SQPoll make before
// blocking (default 1<<14 for Spin; 1 for SQPoll, whose kernel thread
// needs the CPU a spinning loop would take: measured on 2 cores, a budget
// of 1 is 3x faster than 1<<10). Loop only.
func WithSpinBudget(n int) Option {
	return func(c *config) {
		c.loopOption("WithSpinBudget")
		if n < 0 {
			c.bad.Bad("WithSpinBudget", fmt.Sprintf("n = %d is negative", n))
		}
		c.SpinBudget = n
	}
}

// WithSpinTime sets how long Hybrid spins before blocking (default 50µs).
// Loop only.
func WithSpinTime(d time.Duration) Option {
	return func(c *config) {
		c.loopOption("WithSpinTime")
		if d < 0 {
			c.bad.Bad("WithSpinTime", fmt.Sprintf("d = %v is negative", d))
		}
		c.SpinTime = d
	}
}

// WithWaitTimeout bounds one wait (default 1s); wakeups do not depend on
// it, it only bounds a wait nobody ends. Loop only.
func WithWaitTimeout(d time.Duration) Option {
	return func(c *config) {
		c.loopOption("WithWaitTimeout")
		if d < 0 {
			c.bad.Bad("WithWaitTimeout", fmt.Sprintf("d = %v is negative", d))
		}
		c.WaitTimeout = d
	}
}

// WithWaitBatch sets how many CQEs a kernel wait (Block, Spin, Hybrid,
// SQPoll; not Park) asks for (default 1). With more than 1, minWait
// (default 50µs when 0) is the most a wait holds back a ready CQE
// (IORING_FEAT_MIN_TIMEOUT, Linux 6.12; without it 1 is used). Loop only.
func WithWaitBatch(n uint32, minWait time.Duration) Option {
	return func(c *config) {
		c.loopOption("WithWaitBatch")
		if minWait < 0 {
			c.bad.Bad("WithWaitBatch", fmt.Sprintf("minWait = %v is negative", minWait))
		}
		c.WaitBatch, c.MinWait = n, minWait
	}
}

// WithSQPollIdle sets the SQ thread's idle time before it sleeps (default
// 10ms). Loop only.
func WithSQPollIdle(d time.Duration) Option {
	return func(c *config) {
		c.loopOption("WithSQPollIdle")
		if d < 0 {
			c.bad.Bad("WithSQPollIdle", fmt.Sprintf("d = %v is negative", d))
		}
		c.SQPollIdle = d
	}
}

// WithSlots sets the initial number of operation slots (default 1024); the
// table grows when more operations are in flight.
func WithSlots(n int) Option {
	return func(c *config) {
		if n < 0 || n > 1<<30 {
			c.bad.Bad("WithSlots", fmt.Sprintf("n = %d is outside 0..2^30", n))
		}
		c.Slots = n
	}
}

// WithNetPark registers an eventfd with the Core's ring, for ParkNetpoll
// (and Wait's netpoll park). Core only: a Park loop has it.
func WithNetPark() Option {
	return func(c *config) { c.coreOption("WithNetPark"); c.NetPark = true }
}

// WithKernelWake arms a poll of a wake eventfd in the Core's ring, so that
// Wake (an Inbox's Post, Stop) ends a sleep in io_uring_enter begun with
// BeginKernelSleep; it is left out on an IOPOLL ring, whose owner never
// sleeps in the kernel. Core only: the loops that sleep in the kernel
// have it.
func WithKernelWake() Option {
	return func(c *config) { c.coreOption("WithKernelWake"); c.KernelWake = true }
}

// WithSubmitAll adds IORING_SETUP_SUBMIT_ALL where the kernel has it (no
// error where it does not). Core only: every Loop has it.
func WithSubmitAll() Option {
	return func(c *config) { c.coreOption("WithSubmitAll"); c.SubmitAll = true }
}

// WithRegisteredRingFd registers the ring fd with the ring and enters
// through its index where the kernel has IORING_REGISTER_RING_FDS (no
// error where it does not); the index is valid on the owner's thread
// only, which is the only one that enters. Core only: every Loop has it.
func WithRegisteredRingFd() Option {
	return func(c *config) { c.coreOption("WithRegisteredRingFd"); c.RegisterRing = true }
}

// OptionError reports a bad option argument (or a combination, or an
// option given to the constructor it does not configure) before any ring
// exists; it names the option ("WithSpinBudget") and unwraps to
// unix.EINVAL. It is the library's one option error, uring.OptionError.
type OptionError = uring.OptionError

// ringDefaults checks and completes the settings a Loop and a Core share.
func (c *config) ringDefaults() error {
	if err := c.bad.Err(); err != nil {
		return err
	}
	if c.Entries == 0 {
		c.Entries = 256
	}
	if c.CQEntries != 0 && c.CQEntries < c.Entries {
		return optionError("WithCQEntries", fmt.Sprintf("n = %d is smaller than the SQ (%d entries)", c.CQEntries, c.Entries))
	}
	if c.Slots == 0 {
		c.Slots = 1024
	}
	return nil
}

// setDefaults checks a Loop's options and fills in its defaults.
func (c *config) setDefaults() error {
	if err := c.ringDefaults(); err != nil {
		return err
	}
	if c.coreOnly != "" {
		return optionError(c.coreOnly, "configures a Core (NewCore); a Loop's strategy picks it")
	}
	if c.SpinBudget == 0 {
		c.SpinBudget = 1 << 14
		if c.Strategy == SQPoll {
			c.SpinBudget = 1
		}
	}
	if c.SpinTime == 0 {
		c.SpinTime = 50 * time.Microsecond
	}
	if c.WaitTimeout == 0 {
		c.WaitTimeout = time.Second
	}
	if c.WaitBatch == 0 {
		c.WaitBatch = 1
	}
	if c.WaitBatch > 1 && c.MinWait == 0 {
		c.MinWait = 50 * time.Microsecond
	}
	if c.SQPollIdle == 0 {
		c.SQPollIdle = 10 * time.Millisecond
	}
	return nil
}

// newCoreConfig applies a Core's options and checks them.
func newCoreConfig(opts []Option) (config, error) {
	var c config
	for i, o := range opts {
		if o == nil {
			return c, optionError("NewCore", fmt.Sprintf("opts[%d] is nil", i))
		}
		o(&c)
	}
	if err := c.ringDefaults(); err != nil {
		return c, err
	}
	if c.loopOnly != "" {
		return c, optionError(c.loopOnly, "configures a Loop (New), not a Core")
	}
	return c, nil
}

// coreOptions are the options of the Core a Loop with this (defaulted)
// config owns: the strategy's ring options before the caller's;
// SINGLE_ISSUER|DEFER_TASKRUN unless left out or under SQPoll (which
// excludes DEFER_TASKRUN); SUBMIT_ALL and the registered ring fd where the
// kernel has them; the eventfd park for Park; the wake of a sleep in
// io_uring_enter for the strategies that sleep there (not IOPOLL).
func (c *config) coreOptions() []Option {
	var ring []uring.Option
	switch c.Strategy {
	case IOPoll:
		ring = append(ring, uring.WithIOPoll())
	case HybridIOPoll:
		ring = append(ring, uring.WithIOPoll(), uring.WithHybridIOPoll())
	case SQPoll:
		ring = append(ring, uring.WithSQPoll(c.SQPollIdle))
	}
	o := []Option{
		WithEntries(c.Entries),
		WithCQEntries(c.CQEntries),
		WithRingOptions(append(ring, c.Options...)...),
		WithSlots(c.Slots),
		WithSubmitAll(),
		WithRegisteredRingFd(),
	}
	if c.NoDeferTaskrun || c.Strategy == SQPoll {
		o = append(o, WithoutDeferTaskrun())
	}
	switch c.Strategy {
	case Park:
		o = append(o, WithNetPark())
	case IOPoll, HybridIOPoll:
	default:
		o = append(o, WithKernelWake())
	}
	return o
}

// optionError is the *OptionError of this package's option opt.
func optionError(opt, reason string) *OptionError {
	return &OptionError{Option: opt, Reason: reason}
}
