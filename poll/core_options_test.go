//go:build linux

package poll

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
)

// withForceDefer makes a Core take DEFER_TASKRUN even where its eventfd
// loses wakeups with it (tests of that probe).
func withForceDefer() Option { return func(c *config) { c.forceDefer = true } }

// newTestCore makes a Core on the test's thread, closed at the end.
func newTestCore(t *testing.T, opts ...Option) *Core {
	t.Helper()
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	c, err := NewCore(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// TestCoreOptions: NewCore takes the options a Loop passes on; each one
// shows in the ring or the sleeps the Core prepared.
func TestCoreOptions(t *testing.T) {
	c := newTestCore(t)
	require.Equal(t, uint32(256), c.Ring().SQEntries(), "default SQ")
	require.Len(t, c.slots, 1024, "default slots")
	require.False(t, c.NetPark())
	require.False(t, c.wake.armed)
	require.Zero(t, c.Ring().SetupFlags()&sys.SetupSubmitAll)

	// A ring option reaches the ring: COOP_TASKRUN where the kernel has it
	// (5.19), else CLAMP (every kernel).
	ringOpt, ringFlag := uring.WithCoopTaskrun(), sys.SetupCoopTaskrun
	if uring.CheckSetupFlag(sys.SetupCoopTaskrun) != nil {
		ringOpt, ringFlag = uring.WithClamp(), sys.SetupClamp
	}
	c = newTestCore(t, WithEntries(16), WithCQEntries(64), WithSlots(32), WithNetPark(), WithKernelWake(),
		WithSubmitAll(), WithRegisteredRingFd(), WithoutDeferTaskrun(), WithRingOptions(ringOpt))
	r := c.Ring()
	require.Equal(t, uint32(16), r.SQEntries())
	require.Equal(t, uint32(64), r.CQEntries())
	require.Len(t, c.slots, 32)
	require.True(t, c.NetPark())
	require.True(t, c.wake.armed)
	require.Zero(t, r.SetupFlags()&sys.SetupDeferTaskrun)
	require.NotZero(t, r.SetupFlags()&ringFlag)
	if uring.CheckSetupFlag(sys.SetupSubmitAll) == nil {
		require.NotZero(t, r.SetupFlags()&sys.SetupSubmitAll)
	}
	if deferTaskrunUsable(false, false) {
		c = newTestCore(t, WithEntries(8))
		require.NotZero(t, c.Ring().SetupFlags()&sys.SetupDeferTaskrun, "DEFER_TASKRUN is the default")
	}
}

// TestCoreOptionErrors: a bad option, or a Loop's option given to
// NewCore, is an *OptionError naming it; no ring is made.
func TestCoreOptionErrors(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := testutil.Take()
	for _, c := range []struct {
		opts   []Option
		option string
	}{
		{[]Option{WithEntries(1 << 20)}, "WithEntries"},
		{[]Option{WithCQEntries(1 << 20)}, "WithCQEntries"},
		{[]Option{WithEntries(64), WithCQEntries(8)}, "WithCQEntries"},
		{[]Option{WithCQEntries(8)}, "WithCQEntries"}, // smaller than the default SQ
		{[]Option{WithSlots(-1)}, "WithSlots"},
		{[]Option{WithRingOptions(uring.WithClamp(), nil)}, "WithRingOptions"},
		{[]Option{WithEntries(8), nil}, "NewCore"},
		{[]Option{WithStrategy(Block)}, "WithStrategy"},
		{[]Option{WithSpinBudget(10)}, "WithSpinBudget"},
		{[]Option{WithSpinTime(1)}, "WithSpinTime"},
		{[]Option{WithWaitTimeout(1)}, "WithWaitTimeout"},
		{[]Option{WithWaitBatch(2, 0)}, "WithWaitBatch"},
		{[]Option{WithSQPollIdle(1)}, "WithSQPollIdle"},
	} {
		core, err := NewCore(c.opts...)
		require.Nil(t, core, c.option)
		var oe *OptionError
		require.ErrorAs(t, err, &oe)
		require.Equal(t, c.option, oe.Option)
		require.Contains(t, err.Error(), c.option)
		require.ErrorIs(t, err, unix.EINVAL)
	}
	require.Empty(t, testutil.Leaked(before), "rejected options leave no fd or mapping")
}

// TestLoopRefusesCoreOptions: the options only a Core takes (a Loop's
// strategy picks them) are *OptionErrors for New, as are a nil ring
// option and a CQ smaller than the default SQ.
func TestLoopRefusesCoreOptions(t *testing.T) {
	for _, c := range []struct {
		opts   []Option
		option string
	}{
		{[]Option{WithNetPark()}, "WithNetPark"},
		{[]Option{WithKernelWake()}, "WithKernelWake"},
		{[]Option{WithSubmitAll()}, "WithSubmitAll"},
		{[]Option{WithRegisteredRingFd()}, "WithRegisteredRingFd"},
		{[]Option{WithRingOptions(nil)}, "WithRingOptions"},
		{[]Option{WithCQEntries(1 << 20)}, "WithCQEntries"},
		{[]Option{WithCQEntries(8)}, "WithCQEntries"},
	} {
		l, err := New(c.opts...)
		require.Nil(t, l, c.option)
		var oe *OptionError
		require.ErrorAs(t, err, &oe)
		require.Equal(t, c.option, oe.Option)
		require.ErrorIs(t, err, unix.EINVAL)
	}
}

// TestOptionErrorIsUrings: poll's option error is the library's one,
// uring.OptionError.
func TestOptionErrorIsUrings(t *testing.T) {
	_, err := New(WithSpinBudget(-1))
	var oe *uring.OptionError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "WithSpinBudget", oe.Option)
	require.Contains(t, oe.Reason, "n = -1")
}

// TestLoopCoreOptions: the Core a Loop makes from its strategy has the
// sleeps that strategy needs.
func TestLoopCoreOptions(t *testing.T) {
	for _, st := range []Strategy{Park, Block, Spin} {
		l := newLoop(t, WithStrategy(st), WithEntries(32), WithSlots(64))
		var netPark, wake bool
		var entries uint32
		var slots int
		require.NoError(t, l.Run(func() {
			netPark, wake, entries, slots = l.c.NetPark(), l.c.wake.armed, l.ring.SQEntries(), len(l.c.slots)
		}))
		require.Equal(t, st == Park, netPark, st.String())
		require.Equal(t, st != Park, wake, st.String())
		require.Equal(t, uint32(32), entries)
		require.GreaterOrEqual(t, slots, 64)
	}
}
