//go:build linux

package poll

import (
	"fmt"
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
	// Config.SpinBudget empty polls, then blocks like Block.
	Spin
	// Hybrid spins for Config.SpinTime, then blocks.
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

// Config configures New. The zero value is a Park loop on a 256-entry
// SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG ring.
type Config struct {
	Entries   uint32   // SQ size (default 256)
	CQEntries uint32   // CQ size (default: the kernel's, twice Entries)
	Strategy  Strategy // default Park
	// Options are extra ring options, added after the ones the strategy
	// picks (do not repeat WithSQPoll/WithIOPoll here).
	Options []uring.Option
	// NoDeferTaskrun leaves out SINGLE_ISSUER|DEFER_TASKRUN (they are
	// always left out under SQPoll, which excludes DEFER_TASKRUN).
	NoDeferTaskrun bool
	// SpinBudget is how many empty CQ polls Spin and SQPoll make before
	// blocking (default 1<<14 for Spin; 1 for SQPoll, whose kernel thread
	// needs the CPU a spinning loop would take: measured on 2 cores, a
	// budget of 1 is 3x faster than 1<<10).
	SpinBudget int
	// SpinTime is how long Hybrid spins before blocking (default 50µs).
	SpinTime time.Duration
	// WaitTimeout bounds one wait in the kernel (default 1s); wakeups do
	// not depend on it, it only bounds a wait nobody ends.
	WaitTimeout time.Duration
	// WaitBatch is how many CQEs a kernel wait (Block, Spin, Hybrid,
	// SQPoll; not Park) asks for (default 1). With
	// more than 1, MinWait (default 50µs) is the most a wait holds back a
	// ready CQE (IORING_FEAT_MIN_TIMEOUT, Linux 6.12; without it 1 is used).
	WaitBatch uint32
	MinWait   time.Duration
	// SQPollIdle is the SQ thread's idle time before it sleeps (default 10ms).
	SQPollIdle time.Duration
	// Slots is the initial number of operation slots (default 1024); the
	// table grows when more operations are in flight.
	Slots int
}

// ConfigError names the Config field New rejected.
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string { return "poll: Config." + e.Field + ": " + e.Reason }

func (c *Config) setDefaults() error {
	switch {
	case c.Strategy < Park || c.Strategy > SQPoll:
		return &ConfigError{"Strategy", fmt.Sprintf("%d is not a strategy", int(c.Strategy))}
	case c.Entries > uring.MaxEntries:
		return &ConfigError{"Entries", fmt.Sprintf("%d exceeds %d", c.Entries, uring.MaxEntries)}
	case c.CQEntries != 0 && c.CQEntries < max(c.Entries, 1):
		return &ConfigError{"CQEntries", fmt.Sprintf("%d is smaller than Entries", c.CQEntries)}
	case c.SpinBudget < 0:
		return &ConfigError{"SpinBudget", fmt.Sprintf("%d is negative", c.SpinBudget)}
	case c.SpinTime < 0:
		return &ConfigError{"SpinTime", fmt.Sprintf("%v is negative", c.SpinTime)}
	case c.WaitTimeout < 0:
		return &ConfigError{"WaitTimeout", fmt.Sprintf("%v is negative", c.WaitTimeout)}
	case c.MinWait < 0:
		return &ConfigError{"MinWait", fmt.Sprintf("%v is negative", c.MinWait)}
	case c.SQPollIdle < 0:
		return &ConfigError{"SQPollIdle", fmt.Sprintf("%v is negative", c.SQPollIdle)}
	case c.Slots < 0 || c.Slots > 1<<30:
		return &ConfigError{"Slots", fmt.Sprintf("%d is outside 0..2^30", c.Slots)}
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
func (c *Config) coreConfig() CoreConfig {
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
