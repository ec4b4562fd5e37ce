//go:build linux

package task

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
)

func newRuntime(tb testing.TB, n int) *Runtime {
	tb.Helper()
	rt, err := NewRuntime(n, backendOpts()...)
	if errors.Is(err, uring.ErrUnsupported) {
		tb.Skipf("io_uring unavailable: %v", err)
	}
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, rt.Close()) })
	return rt
}

func TestSpawnAtOtherExecutor(t *testing.T) {
	rt := newRuntime(t, 2)
	a, b := rt.Executors()[0], rt.Executors()[1]
	v, err := Run(context.Background(), a, func(tk *T) (int, error) {
		sum := 0
		for i := 0; i < 100; i++ {
			h := SpawnAt(tk, b, func(tk *T) (int, error) {
				if tk.Executor() != b {
					return 0, errors.New("wrong executor")
				}
				return i, tk.Nop()
			})
			v, err := h.Join(tk)
			if err != nil {
				return 0, err
			}
			sum += v
		}
		return sum, nil
	})
	require.NoError(t, err)
	require.Equal(t, 4950, v)
}

func TestRuntimeCloseWakesParkedTasks(t *testing.T) {
	rt, err := NewRuntime(2)
	if errors.Is(err, uring.ErrUnsupported) {
		t.Skip(err)
	}
	require.NoError(t, err)
	r, _ := pipe(t)
	ex := rt.Executors()[0]
	io := SpawnOn(context.Background(), ex, func(tk *T) (int, error) { return tk.Read(r, make([]byte, 1), CurrentPos) })
	sl := SpawnOn(context.Background(), ex, func(tk *T) (int, error) { return 0, tk.Sleep(time.Hour) })
	ch := SpawnOn(context.Background(), rt.Executors()[1], func(tk *T) (int, error) {
		c := NewChan[int](tk, 0)
		v, _, err := c.Recv(tk)
		return v, err
	})
	// All three wait: the read and the sleep in flight on ex, the Recv
	// parked on the other executor.
	waitBusy(t, ex, 2)
	ex1 := rt.Executors()[1]
	waitOnExec(t, ex1, "the Recv task parked", func() bool { return ex1.nlive == 1 && !ex1.runnable() })
	// Close wakes them: a task still there after the close wait would be
	// stopped and reported as an error, so nil means each one ended.
	closed := make(chan error, 1)
	go func() { closed <- rt.Close() }()
	require.NoError(t, within(t, closed, "Runtime.Close never returned"))
	for _, h := range []*Handle[int]{io, sl, ch} {
		_, err := h.Wait(context.Background())
		require.ErrorIs(t, err, ErrClosed)
	}
	// After Close, new work fails at once.
	_, err = Run(context.Background(), ex, func(tk *T) (int, error) { return 0, tk.Nop() })
	require.ErrorIs(t, err, ErrClosed)
}
