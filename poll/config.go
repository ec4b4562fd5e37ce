//go:build linux

package poll

import (
	"fmt"
	"syscall"
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

// Option configures New. Without options a loop is a Park loop on a
// 256-entry ring with SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG where the
// kernel has them.
type Option func(*config)

// config is what the options set.
type config struct {
	Entries        uint32
	CQEntries      uint32
	Strategy       Strategy
	Options        []uring.Option
	NoDeferTaskrun bool
	SpinBudget     int
	SpinTime       time.Duration
	WaitTimeout    time.Duration
	WaitBatch      uint32
	MinWait        time.Duration
	SQPollIdle     time.Duration
	Slots          int
	errs           []error // bad option arguments, reported by New
}

// WithStrategy sets how the loop waits for completions (default Park).
func WithStrategy(s Strategy) Option {
	return func(c *config) {
		if s < Park || s > SQPoll {
			c.bad("WithStrategy", "s", fmt.Sprintf("%d is not a strategy", int(s)))
		}
		c.Strategy = s
	}
}

// WithEntries sets the SQ size (default 256; at most uring.MaxEntries).
func WithEntries(n uint32) Option {
	return func(c *config) {
		if n > uring.MaxEntries {
			c.bad("WithEntries", "n", fmt.Sprintf("%d exceeds %d", n, uring.MaxEntries))
		}
		c.Entries = n
	}
}

// WithCQEntries sets the CQ size (default: the kernel's, twice the SQ);
// it must not be smaller than the SQ.
func WithCQEntries(n uint32) Option { return func(c *config) { c.CQEntries = n } }

// WithRingOptions adds ring options after the ones the strategy picks (do
// not repeat WithSQPoll/WithIOPoll here).
func WithRingOptions(opts ...uring.Option) Option {
	return func(c *config) { c.Options = append(c.Options, opts...) }
}

// WithoutDeferTaskrun leaves out SINGLE_ISSUER|DEFER_TASKRUN (they are
// always left out under SQPoll, which excludes DEFER_TASKRUN).
func WithoutDeferTaskrun() Option { return func(c *config) { c.NoDeferTaskrun = true } }

// WithSpinBudget sets how many empty CQ polls Spin and SQPoll make before
// blocking (default 1<<14 for Spin; 1 for SQPoll, whose kernel thread
// needs the CPU a spinning loop would take: measured on 2 cores, a budget
// of 1 is 3x faster than 1<<10).
func WithSpinBudget(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.bad("WithSpinBudget", "n", fmt.Sprintf("%d is negative", n))
		}
		c.SpinBudget = n
	}
}

// WithSpinTime sets how long Hybrid spins before blocking (default 50µs).
func WithSpinTime(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.bad("WithSpinTime", "d", fmt.Sprintf("%v is negative", d))
		}
		c.SpinTime = d
	}
}

// WithWaitTimeout bounds one wait (default 1s); wakeups do not depend on
// it, it only bounds a wait nobody ends.
func WithWaitTimeout(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.bad("WithWaitTimeout", "d", fmt.Sprintf("%v is negative", d))
		}
		c.WaitTimeout = d
	}
}

// WithWaitBatch sets how many CQEs a kernel wait (Block, Spin, Hybrid,
// SQPoll; not Park) asks for (default 1). With more than 1, minWait
// (default 50µs when 0) is the most a wait holds back a ready CQE
// (IORING_FEAT_MIN_TIMEOUT, Linux 6.12; without it 1 is used).
func WithWaitBatch(n uint32, minWait time.Duration) Option {
	return func(c *config) {
		if minWait < 0 {
			c.bad("WithWaitBatch", "minWait", fmt.Sprintf("%v is negative", minWait))
		}
		c.WaitBatch, c.MinWait = n, minWait
	}
}

// WithSQPollIdle sets the SQ thread's idle time before it sleeps (default
// 10ms).
func WithSQPollIdle(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.bad("WithSQPollIdle", "d", fmt.Sprintf("%v is negative", d))
		}
		c.SQPollIdle = d
	}
}

// WithSlots sets the initial number of operation slots (default 1024); the
// table grows when more operations are in flight.
func WithSlots(n int) Option {
	return func(c *config) {
		if n < 0 || n > 1<<30 {
			c.bad("WithSlots", "n", fmt.Sprintf("%d is outside 0..2^30", n))
		}
		c.Slots = n
	}
}

// OptionError names the option (and argument) New rejected.
type OptionError struct {
	Option string // e.g. "WithSpinBudget"
	Arg    string
	Reason string
}

func (e *OptionError) Error() string { return "poll: " + e.Option + ": " + e.Arg + " " + e.Reason }

// Unwrap makes errors.Is(err, unix.EINVAL) hold, as for the other
// argument errors of the library.
func (e *OptionError) Unwrap() error { return syscall.EINVAL }

func (c *config) bad(opt, arg, reason string) {
	c.errs = append(c.errs, &OptionError{opt, arg, reason})
}

func (c *config) setDefaults() error {
	if len(c.errs) > 0 {
		return c.errs[0]
	}
	if c.CQEntries != 0 && c.CQEntries < max(c.Entries, 1) {
		return &OptionError{"WithCQEntries", "n", fmt.Sprintf("%d is smaller than the SQ (%d)", c.CQEntries, max(c.Entries, 256))}
	}
	if c.Entries == 0 {
		c.Entries = 256
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
	if c.Slots == 0 {
		c.Slots = 1024
	}
	return nil
}

// coreConfig returns the Core the strategy needs: its ring options, then
// the caller's; SINGLE_ISSUER|DEFER_TASKRUN, SUBMIT_ALL and the registered
// ring fd where the kernel has them.
func (c *config) coreConfig() CoreConfig {
	var o []uring.Option
	switch c.Strategy {
	case IOPoll:
		o = append(o, uring.WithIOPoll())
	case HybridIOPoll:
		o = append(o, uring.WithIOPoll(), uring.WithHybridIOPoll())
	case SQPoll:
		o = append(o, uring.WithSQPoll(c.SQPollIdle))
	}
	iopoll := c.Strategy == IOPoll || c.Strategy == HybridIOPoll
	return CoreConfig{
		Entries:   c.Entries,
		CQEntries: c.CQEntries,
		Options:   append(o, c.Options...),
		// SQPOLL excludes DEFER_TASKRUN.
		DeferTaskrun: c.Strategy != SQPoll && !c.NoDeferTaskrun,
		SubmitAll:    true,
		RegisterRing: true,
		NetPark:      c.Strategy == Park,
		KernelWake:   c.Strategy != Park && !iopoll,
		Slots:        c.Slots,
	}
}
