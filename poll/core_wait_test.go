//go:build linux

package poll

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// The adaptive spin follows the recent waits: short ones (with ops in
// flight) lengthen it up to twice their average, capped; long ones, waits
// with nothing in flight, a fixed spin, or no spare P leave it as
// configured.
func TestAdaptiveSpin(t *testing.T) {
	// Spare Ps for the test's own decision, whatever GOMAXPROCS it runs at.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(int(runningCores.Load()) + 2))
	c := &Core{inflight: 1}
	c.SetSpin(DefaultSpin, true)
	require.Equal(t, DefaultSpin, c.spinFor(), "no history yet")
	for range 64 {
		c.noteWait(30 * time.Microsecond)
	}
	require.InDelta(t, float64(60*time.Microsecond), float64(c.spinFor()), float64(2*time.Microsecond))
	require.True(t, c.waitInKernel(), "short waits with ops in flight: wait in the kernel")

	for range 64 {
		c.noteWait(5 * time.Millisecond) // an idle server's gaps
	}
	require.Equal(t, DefaultSpin, c.spinFor(), "long waits turn it off")
	require.False(t, c.waitInKernel())
	require.LessOrEqual(t, c.wp.avg, 10*maxKernelWait, "one long wait weighs at most the cap")

	c.SetWaitHint(30 * time.Microsecond)
	c.inflight = 0
	c.noteWait(time.Second)
	require.Equal(t, 30*time.Microsecond, c.wp.avg, "a wait with nothing in flight is not counted")
	require.False(t, c.waitInKernel(), "nothing in flight: never a kernel wait")
	c.inflight = 1

	c.SetSpin(DefaultSpin, false)
	require.Equal(t, DefaultSpin, c.spinFor(), "a fixed spin")
	require.False(t, c.waitInKernel())

	c.SetSpin(DefaultSpin, true)
	runningCores.Add(int32(runtime.GOMAXPROCS(0)))
	defer runningCores.Add(-int32(runtime.GOMAXPROCS(0)))
	require.Equal(t, DefaultSpin, c.spinFor(), "no spare P: no longer spin")
	require.False(t, c.waitInKernel(), "no spare P: no kernel wait")
}

// Spin, the package's one spin (Wait's and a Loop's): it checks nothing
// on a zero budget, spends a budget of polls or of time on an empty ring
// and reports false, and reports true for a CQE to reap or posted work,
// leaving both where they were.
func TestSpinBudgets(t *testing.T) {
	c := newTestCore(t)
	require.False(t, c.Spin(0, 0), "no budget")
	require.False(t, c.Spin(100, 0), "100 empty polls")
	require.False(t, c.Spin(0, 20*time.Microsecond), "20µs on an empty ring")

	c.RaiseWork()
	require.True(t, c.Spin(1, 0), "posted work")
	require.True(t, c.Spin(0, time.Hour), "posted work, under a time budget")
	require.True(t, c.TakeWork(), "Spin leaves the work flag up")
	require.False(t, c.Spin(1, 0))

	r := c.Ring()
	s, err := r.GetSQE()
	require.NoError(t, err)
	sqe.Nop(s)
	s.UserData = IgnoreUserData
	_, err = r.Submit()
	require.NoError(t, err)
	require.True(t, c.Spin(0, time.Hour), "a NOP's CQE (or its deferred completion) to reap")
	c.Reap()
	require.False(t, c.Spin(1, 0), "reaped: empty again")
}

// A handler that reaps (to make room in a full SQ, say) while the Core
// dispatches a batch loses no CQE and runs no handler twice: the nested
// reap leaves the CQEs to the reap that runs.
func TestReapInsideAHandler(t *testing.T) {
	c := newTestCore(t)
	r := c.Ring()
	calls := make([]int, 12)
	nop := func(h Handler) {
		s, err := r.GetSQE()
		require.NoError(t, err)
		sqe.Nop(s)
		s.UserData = uint64(c.Acquire(h))
	}
	var handler func(i int) Handler
	handler = func(i int) Handler {
		return HandlerFunc(func(*sys.CQE) {
			calls[i]++
			if i == 0 {
				// More CQEs arrive while the batch of 8 is dispatched,
				// and this handler reaps.
				for k := 8; k < 12; k++ {
					nop(handler(k))
				}
				_, err := r.Submit()
				require.NoError(t, err)
				c.Reap()
			}
		})
	}
	for i := 0; i < 8; i++ {
		nop(handler(i))
	}
	_, err := r.SubmitAndWait(8)
	require.NoError(t, err)
	// NOPs complete as they are submitted: everything is in the CQ now.
	for c.Reap() > 0 {
	}
	require.Zero(t, c.InFlight(), "every NOP's CQE was dispatched")
	require.Equal(t, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, calls, "each CQE's handler ran once")
}

// Reap dispatches 16-byte CQEs where they lie in the ring, and copies
// 32-byte ones out first (CQE32, 5.19): both deliver every CQE once, and
// a wrapped CQ (more CQEs reaped than it holds) comes out whole.
func TestReapInPlaceAndCopied(t *testing.T) {
	for _, big := range []bool{false, true} {
		name := "16-byte CQEs, in place"
		var opts []Option
		if big {
			name = "CQE32, copied"
			testutil.Require(t, uring.CheckSetupFlag(sys.SetupCQE32))
			opts = append(opts, WithRingOptions(uring.WithCQE32()))
		}
		t.Run(name, func(t *testing.T) {
			c := newTestCore(t, append(opts, WithEntries(8))...)
			require.Equal(t, !big, c.inPlace)
			r := c.Ring()
			handled := 0
			h := HandlerFunc(func(*sys.CQE) { handled++ })
			for round := 0; round < 10; round++ { // 80 NOPs through a CQ of 32
				for i := 0; i < 8; i++ {
					s, err := r.GetSQE()
					require.NoError(t, err)
					sqe.Nop(s)
					s.UserData = uint64(c.Acquire(h))
				}
				_, err := r.SubmitAndWait(8)
				require.NoError(t, err)
				require.Equal(t, 8, c.Reap())
			}
			require.Equal(t, 80, handled)
			require.Zero(t, c.InFlight())
		})
	}
}
