//go:build linux

package task

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The functions AtClose registers run once each when Close begins, on the
// executor's thread, before the tasks are told ErrClosed; once Close has
// begun AtClose refuses more.
func TestAtClose(t *testing.T) {
	ex, err := NewExecutor(backendOpts()...)
	require.NoError(t, err)
	var sleeperDone atomic.Bool
	parked := make(chan struct{})
	h := SpawnOn(context.Background(), ex, func(tk *T) (int, error) {
		close(parked)
		err := tk.Sleep(time.Hour)
		sleeperDone.Store(true)
		return 0, err
	})
	<-parked
	var runs [2]atomic.Int32
	var sawSleeperDone atomic.Bool
	for i := range runs {
		require.True(t, ex.AtClose(func() {
			runs[i].Add(1)
			sawSleeperDone.Store(sleeperDone.Load())
		}))
	}
	require.NoError(t, ex.Close())
	require.Equal(t, int32(1), runs[0].Load())
	require.Equal(t, int32(1), runs[1].Load())
	require.False(t, sawSleeperDone.Load(), "the functions ran before the parked task was woken")
	_, err = h.Wait(context.Background())
	require.ErrorIs(t, err, ErrClosed)
	require.False(t, ex.AtClose(func() { t.Error("a function registered after Close ran") }))
	require.NoError(t, ex.Close())
}

// Runtime.OnThread is true on the thread of any running executor of the
// runtime (a closing one's too), false elsewhere.
func TestRuntimeOnThread(t *testing.T) {
	rt, err := NewRuntime(2, backendOpts()...)
	require.NoError(t, err)
	require.False(t, rt.OnThread())
	for _, ex := range rt.Executors() {
		on, err := Run(context.Background(), ex, func(*T) (bool, error) { return rt.OnThread(), nil })
		require.NoError(t, err)
		require.True(t, on)
	}
	other, err := NewRuntime(1, backendOpts()...)
	require.NoError(t, err)
	defer func() { require.NoError(t, other.Close()) }()
	on, err := Run(context.Background(), other.Executors()[0], func(*T) (bool, error) { return rt.OnThread(), nil })
	require.NoError(t, err)
	require.False(t, on, "a task of another runtime")

	// A task told ErrClosed, still running in the close wait.
	parked := make(chan struct{})
	h := SpawnOn(context.Background(), rt.Executors()[0], func(tk *T) (bool, error) {
		close(parked)
		_ = tk.Sleep(time.Hour)
		return rt.OnThread(), nil
	})
	<-parked
	require.NoError(t, rt.Close())
	on, err = h.Wait(context.Background())
	require.NoError(t, err)
	require.True(t, on, "a closing executor's task")
	require.False(t, rt.OnThread())
}

// RingConnWaits reports WithRingConnWaits on io_uring, never on the
// fallback.
func TestRingConnWaitsOption(t *testing.T) {
	require.Equal(t, os.Getenv(backendEnv) == ringConnsBackend, newExec(t).RingConnWaits(), "by default only on the ring-conns pass")
	ex := newExec(t, WithRingConnWaits())
	require.Equal(t, ex.Backend().Kind == BackendIOUring, ex.RingConnWaits())
}
