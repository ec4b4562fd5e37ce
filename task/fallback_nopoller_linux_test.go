//go:build linux

package task

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Where there is no poller (Windows), a fallback executor parks on its
// wake channel and its timers: tasks that sleep, talk over channels, run
// blocking calls and are started from other goroutines all complete, and a
// context deadline ends a sleep. Run here with the poller left out.
func TestFallbackWithoutPoller(t *testing.T) {
	fbNoPoller = true
	ex, err := NewExecutor(WithoutIOUring())
	fbNoPoller = false
	require.NoError(t, err)
	defer func() { require.NoError(t, ex.Close()) }()
	require.Nil(t, ex.fb.p)

	// Posts from goroutines wake the parked executor.
	var wg sync.WaitGroup
	sums := make([]int, 8)
	for g := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				v, err := Run(context.Background(), ex, func(tk *T) (int, error) { return i, nil })
				if err != nil {
					return
				}
				sums[g] += v
			}
		}()
	}
	wg.Wait()
	for g, s := range sums {
		require.Equal(t, 49*50/2, s, "goroutine %d", g)
	}

	got, err := Run(context.Background(), ex, func(tk *T) (int, error) {
		// Ping-pong over a channel between two tasks, with sleeps.
		c := NewChan[int](tk, 0)
		h := Spawn(tk, func(tk *T) (int, error) {
			sum := 0
			for i := 0; i < 20; i++ {
				v, _, err := c.Recv(tk)
				if err != nil {
					return 0, err
				}
				sum += v
				if err := tk.Sleep(time.Millisecond); err != nil {
					return 0, err
				}
			}
			return sum, nil
		})
		for i := 1; i <= 20; i++ {
			if err := c.Send(tk, i); err != nil {
				return 0, err
			}
		}
		sum, err := h.Join(tk)
		if err != nil {
			return 0, err
		}
		// A blocking call parks only the task.
		b, err := Blocking(tk, func() (int, error) { time.Sleep(5 * time.Millisecond); return 1000, nil })
		if err != nil {
			return 0, err
		}
		// A deadline ends a long sleep.
		ctx, cancel := context.WithTimeout(tk.Context(), 10*time.Millisecond)
		defer cancel()
		sh := SpawnContext(ctx, tk, func(tk *T) (struct{}, error) { return struct{}{}, tk.Sleep(time.Hour) })
		if _, err := sh.Join(tk); !errors.Is(err, context.DeadlineExceeded) {
			return 0, errf("the hour-long sleep ended with %v, want the deadline", err)
		}
		return sum + b, nil
	})
	require.NoError(t, err)
	require.Equal(t, 20*21/2+1000, got)
}
