package uring

import (
	"fmt"
	"github.com/pure-uring/uring/internal/argerr"
	"math"
	"time"

	"github.com/pure-uring/uring/sys"
)

// Limits of io_uring_setup(2) (IORING_MAX_ENTRIES, IORING_MAX_CQ_ENTRIES).
const (
	MaxEntries   = 32768
	MaxCQEntries = 2 * MaxEntries
)

// Option configures New. Each setup flag has one.
type Option func(*config)

type config struct {
	flags      sys.SetupFlags
	sqIdle     uint32
	sqCPU      uint32
	cqEntries  uint32
	wqFd       uint32
	attach     *Ring
	registerFd bool
	argerr.Options
	rawFlagsSet bool
}

// WithSQPoll starts a kernel thread that polls the SQ (IORING_SETUP_SQPOLL),
// sleeping after idle without work; Submit then needs no syscall unless the
// thread sleeps.
func WithSQPoll(idle time.Duration) Option {
	return func(c *config) {
		c.flags |= sys.SetupSQPoll
		ms := idle.Milliseconds()
		if idle < 0 || ms > math.MaxUint32 {
			c.Badf("WithSQPoll", "idle = %v: must be between 0 and %d ms", idle, uint32(math.MaxUint32))
			return
		}
		c.sqIdle = uint32(ms)
	}
}

// WithSQPollCPU pins the SQPOLL thread to cpu (IORING_SETUP_SQ_AFF); it
// needs WithSQPoll.
func WithSQPollCPU(cpu int) Option {
	return func(c *config) {
		if cpu < 0 || cpu > math.MaxInt32 {
			c.Badf("WithSQPollCPU", "cpu = %d: must be >= 0", cpu)
			return
		}
		c.flags |= sys.SetupSQAff
		c.sqCPU = uint32(cpu)
	}
}

// WithIOPoll makes the ring busy-poll devices for completions
// (IORING_SETUP_IOPOLL): only O_DIRECT I/O on devices with poll queues.
func WithIOPoll() Option { return flag(sys.SetupIOPoll) }

// WithHybridIOPoll sleeps before polling (IORING_SETUP_HYBRID_IOPOLL, 6.13);
// it needs WithIOPoll.
func WithHybridIOPoll() Option { return flag(sys.SetupHybridIOPoll) }

// WithCQSize sets the CQ size (IORING_SETUP_CQSIZE); it must be at least the
// SQ size and at most MaxCQEntries (or is clamped with WithClamp).
func WithCQSize(n uint32) Option {
	return func(c *config) {
		if n == 0 {
			c.Badf("WithCQSize", "n = 0: the CQ needs at least one entry")
			return
		}
		c.flags |= sys.SetupCQSize
		c.cqEntries = n
	}
}

// WithClamp clamps too-large SQ and CQ sizes to the maximum instead of
// failing (IORING_SETUP_CLAMP).
func WithClamp() Option { return flag(sys.SetupClamp) }

// WithAttachWQ shares other's async worker pool (IORING_SETUP_ATTACH_WQ).
func WithAttachWQ(other *Ring) Option {
	return func(c *config) {
		if other == nil {
			c.Badf("WithAttachWQ", "other = nil: need the ring whose workers to share")
			return
		}
		c.flags |= sys.SetupAttachWQ
		c.attach = other
	}
}

// WithDisabled creates the ring disabled (IORING_SETUP_R_DISABLED) so that
// restrictions can be registered first; Enable starts it.
func WithDisabled() Option { return flag(sys.SetupRDisabled) }

// WithSubmitAll keeps submitting a batch after an SQE fails to prepare
// (IORING_SETUP_SUBMIT_ALL).
func WithSubmitAll() Option { return flag(sys.SetupSubmitAll) }

// WithCoopTaskrun runs completion work only on the next kernel entry instead
// of interrupting the task (IORING_SETUP_COOP_TASKRUN).
func WithCoopTaskrun() Option { return flag(sys.SetupCoopTaskrun) }

// WithTaskrunFlag sets IORING_SQ_TASKRUN when work waits for a kernel entry
// (IORING_SETUP_TASKRUN_FLAG); needs WithCoopTaskrun or WithDeferTaskrun.
func WithTaskrunFlag() Option { return flag(sys.SetupTaskrunFlag) }

// WithSQE128 makes SQEs 128 bytes (IORING_SETUP_SQE128); use GetSQE128.
func WithSQE128() Option { return flag(sys.SetupSQE128) }

// WithCQE32 makes CQEs 32 bytes (IORING_SETUP_CQE32); use Reap32.
func WithCQE32() Option { return flag(sys.SetupCQE32) }

// WithSingleIssuer promises one thread submits (IORING_SETUP_SINGLE_ISSUER,
// 6.0): the thread that creates the ring, or enables it when made
// WithDisabled. The kernel then refuses io_uring_enter and
// io_uring_register from other threads (ErrNotIssuer; see
// OnIssuerThread): lock that goroutine to its thread.
func WithSingleIssuer() Option { return flag(sys.SetupSingleIssuer) }

// WithDeferTaskrun runs completion work only when the issuer waits
// (IORING_SETUP_DEFER_TASKRUN); needs WithSingleIssuer. New adds
// TASKRUN_FLAG with it so a peek knows when to enter.
func WithDeferTaskrun() Option { return flag(sys.SetupDeferTaskrun) }

// WithNoMmap gives the kernel rings in memory this package maps itself
// (IORING_SETUP_NO_MMAP, 6.5).
func WithNoMmap() Option { return flag(sys.SetupNoMmap) }

// WithNoSQArray drops the SQ index array (IORING_SETUP_NO_SQARRAY, 6.6).
func WithNoSQArray() Option { return flag(sys.SetupNoSQArray) }

// WithCQEMixed lets 16- and 32-byte CQEs share the CQ
// (IORING_SETUP_CQE_MIXED, 6.18); use Reap32 to see the extras.
func WithCQEMixed() Option { return flag(sys.SetupCQEMixed) }

// WithRegisteredFdOnly returns no ring fd at all, only a registered index
// (IORING_SETUP_REGISTERED_FD_ONLY, 6.5); needs WithNoMmap, and the ring may
// be used only from the OS thread that created it: from any other, calls
// that enter the kernel and UseTarget (so Enable and package reg's calls)
// return ErrNotIssuer.
func WithRegisteredFdOnly() Option { return flag(sys.SetupRegisteredFdOnly) }

// WithRegisteredRingFd registers the ring fd with itself
// (IORING_REGISTER_RING_FDS) and enters through the index, saving the fd
// lookup per syscall. The index is valid only on the OS thread that created
// the ring (another thread's same index names another ring, or none): lock
// the creating goroutine to its thread. Each enter checks the thread (a
// pointer compare, no syscall); from any other thread, calls that enter
// the kernel (Submit, the waits, EnterWait, a peek that flushes) return
// ErrNotIssuer and enter nothing. Register calls (UseTarget) go through the fd from any thread
// until CloseRingFd.
func WithRegisteredRingFd() Option { return func(c *config) { c.registerFd = true } }

// WithFlags adds raw setup flags, for flags newer than this package; they
// go to the kernel unchecked.
func WithFlags(f sys.SetupFlags) Option {
	return func(c *config) { c.flags |= f; c.rawFlagsSet = true }
}

func flag(f sys.SetupFlags) Option { return func(c *config) { c.flags |= f } }

// knownFlags are the setup flags New checks.
const knownFlags = sys.SetupSQRewind<<1 - 1

// validate rejects combinations the kernel would refuse with EINVAL, naming
// the option, before any syscall.
func (c *config) validate(entries uint32) error {
	if err := c.Err(); err != nil {
		return err
	}
	f := c.flags
	has := func(x sys.SetupFlags) bool { return f&x != 0 }
	switch {
	case entries == 0:
		return &OptionError{Option: "entries", Reason: "0: the SQ needs at least one entry"}
	case entries > MaxEntries && !has(sys.SetupClamp):
		return &OptionError{Option: "entries", Reason: fmt.Sprintf("%d exceeds %d (use WithClamp to clamp)", entries, MaxEntries)}
	case f&^knownFlags != 0 && !c.rawFlagsSet:
		return &OptionError{Option: "WithFlags", Reason: fmt.Sprintf("unknown setup flags %v", f&^knownFlags)}
	case has(sys.SetupCQSize) && c.cqEntries > MaxCQEntries && !has(sys.SetupClamp):
		return &OptionError{Option: "WithCQSize", Reason: fmt.Sprintf("n = %d exceeds %d (use WithClamp to clamp)", c.cqEntries, MaxCQEntries)}
	case has(sys.SetupCQSize) && c.cqEntries < entries && !has(sys.SetupClamp):
		return &OptionError{Option: "WithCQSize", Reason: fmt.Sprintf("n = %d is smaller than the SQ (%d entries)", c.cqEntries, entries)}
	case has(sys.SetupSQAff) && !has(sys.SetupSQPoll):
		return &OptionError{Option: "WithSQPollCPU", Reason: "needs WithSQPoll"}
	case has(sys.SetupHybridIOPoll) && !has(sys.SetupIOPoll):
		return &OptionError{Option: "WithHybridIOPoll", Reason: "needs WithIOPoll"}
	case has(sys.SetupTaskrunFlag) && !has(sys.SetupCoopTaskrun|sys.SetupDeferTaskrun):
		return &OptionError{Option: "WithTaskrunFlag", Reason: "needs WithCoopTaskrun or WithDeferTaskrun"}
	case has(sys.SetupDeferTaskrun) && !has(sys.SetupSingleIssuer):
		return &OptionError{Option: "WithDeferTaskrun", Reason: "needs WithSingleIssuer"}
	case has(sys.SetupSQPoll) && has(sys.SetupCoopTaskrun|sys.SetupTaskrunFlag|sys.SetupDeferTaskrun):
		return &OptionError{Option: "WithSQPoll", Reason: "cannot be combined with WithCoopTaskrun, WithTaskrunFlag or WithDeferTaskrun (the SQ thread, not the task, runs completions)"}
	case has(sys.SetupRegisteredFdOnly) && !has(sys.SetupNoMmap):
		return &OptionError{Option: "WithRegisteredFdOnly", Reason: "needs WithNoMmap (there is no fd to mmap)"}
	case has(sys.SetupCQEMixed) && has(sys.SetupCQE32):
		return &OptionError{Option: "WithCQEMixed", Reason: "cannot be combined with WithCQE32"}
	case has(sys.SetupSQEMixed) && has(sys.SetupSQE128):
		return &OptionError{Option: "WithFlags", Reason: "SQE_MIXED cannot be combined with WithSQE128"}
	case has(sys.SetupSQRewind) && (!has(sys.SetupNoSQArray) || has(sys.SetupSQPoll)):
		return &OptionError{Option: "WithFlags", Reason: "SQ_REWIND needs WithNoSQArray and excludes WithSQPoll"}
	case has(sys.SetupAttachWQ) && c.attach == nil:
		return &OptionError{Option: "WithAttachWQ", Reason: "needs the ring to attach to"}
	case has(sys.SetupRegisteredFdOnly) && c.registerFd:
		return &OptionError{Option: "WithRegisteredRingFd", Reason: "redundant with WithRegisteredFdOnly"}
	}
	return nil
}
