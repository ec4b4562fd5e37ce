//go:build linux

package task

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A blocking call from a task on its own executor returns ErrWouldDeadlock
// instead of waiting for itself.
func TestBlockingCallsFromOwnTaskRefused(t *testing.T) {
	rt := newRuntime(t, 1)
	ex := rt.Executors()[0]
	ctx := context.Background()
	errs := map[string]error{}
	require.NoError(t, runTask(t, ex, func(tk *T) error {
		_, errs["Run"] = Run(ctx, ex, func(*T) (int, error) { return 1, nil })
		errs["Do"] = ex.Do(func() {})
		errs["Runtime.Close"] = rt.Close()
		h := SpawnOn(ctx, ex, func(tk *T) (int, error) { return 2, tk.Nop() })
		_, errs["Handle.Wait"] = h.Wait(ctx)
		if v, err := h.Join(tk); err != nil || v != 2 {
			return errf("Join: %d %v", v, err)
		}
		return nil
	}))
	for name, err := range errs {
		require.ErrorIs(t, err, ErrWouldDeadlock, name)
	}
	// The executor still works, and Close from outside closes it.
	v, err := Run(ctx, ex, func(tk *T) (int, error) { return 3, tk.Nop() })
	require.NoError(t, err)
	require.Equal(t, 3, v)
}

// Close from a task of the executor begins the shutdown (the task is told
// ErrClosed at its next await) and returns ErrWouldDeadlock.
func TestCloseFromOwnTask(t *testing.T) {
	ex, err := NewExecutor()
	require.NoError(t, err)
	var closeErr, after error
	_, _ = Run(context.Background(), ex, func(tk *T) (int, error) {
		closeErr = ex.Close()
		after = tk.Nop()
		return 0, nil
	})
	require.ErrorIs(t, closeErr, ErrWouldDeadlock)
	require.ErrorIs(t, after, ErrClosed)
	<-ex.Done()
	require.NoError(t, ex.Close(), "a later Close returns the shutdown's error: none")
}

// Close reports tasks it had to stop after the close wait: here two
// tasks that ignore ErrClosed and yield to each other forever.
func TestCloseReportsStoppedTasks(t *testing.T) {
	ex, err := NewExecutor(WithCloseWait(50 * time.Millisecond))
	require.NoError(t, err)
	started := make(chan struct{}, 2)
	for range 2 {
		SpawnOn(context.Background(), ex, func(tk *T) (int, error) {
			started <- struct{}{}
			for {
				tk.Yield()
			}
		})
	}
	<-started
	<-started
	err = ex.Close()
	require.Error(t, err)
	require.Contains(t, err.Error(), "2 tasks still waited after the close wait")
	require.Equal(t, err, ex.Close(), "a later Close returns the same error")
}
