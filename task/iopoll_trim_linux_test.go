//go:build linux

package task

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// TestIOPollExecutorTrimsIdle: an executor on an IOPOLL ring (which
// sleeps in ParkIdle, not in the netpoller or the kernel) stops the worker
// coroutines a burst of parked tasks left idle, as the other executors
// do. The tasks park on a task channel, so no request reaches the ring
// (this machine's disk refuses polled reads).
func TestIOPollExecutorTrimsIdle(t *testing.T) {
	requireRing(t)
	ex := newExec(t, WithRingOptions(uring.WithIOPoll()), WithEntries(64))
	require.NotZero(t, ex.Ring().SetupFlags()&sys.SetupIOPoll)
	require.NoError(t, ex.Do(func() { ex.trimEvery = 0 })) // every sleep checks (the default is once a second)
	const n = 1000
	require.NoError(t, runTask(t, ex, func(tk *T) error {
		ch := NewChan[int](tk, 0)
		hs := make([]*Handle[int], n)
		for i := range hs {
			hs[i] = Spawn(tk, func(tk *T) (int, error) { v, _, err := ch.Recv(tk); return v, err }) // parks: one worker each
		}
		tk.Yield()
		for i := range n {
			if err := ch.Send(tk, i); err != nil {
				return err
			}
		}
		for _, h := range hs {
			if _, err := h.Join(tk); err != nil {
				return err
			}
		}
		return nil
	}))
	peak := onExec(t, ex, func() int { return len(ex.idle) })
	require.GreaterOrEqual(t, peak, n, "the burst left a worker per parked task")
	// Two idle sleeps: the first sets the low-water mark, the second trims
	// what stayed idle in between.
	for range 2 {
		require.NoError(t, runTask(t, ex, func(*T) error { return nil }))
	}
	idle := onExec(t, ex, func() int { return len(ex.idle) })
	trimmed := onExec(t, ex, func() int { return ex.stats.trimmed })
	require.LessOrEqual(t, idle, minIdle+2, "idle workers after the burst")
	require.GreaterOrEqual(t, trimmed, n-minIdle-2)
	require.True(t, onExec(t, ex, ex.core.IOPoll), "the executor polls an IOPOLL ring")
}
