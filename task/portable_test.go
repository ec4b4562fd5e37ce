package task

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The tests in this file use only the API every OS has (Linux, macOS, the
// BSDs, Windows): CI compiles them for each, and on Linux they run on both
// backends.

// Tasks started from goroutines, talking over a channel, sleeping,
// running a blocking call, and a deadline ending a sleep.
func TestPortableScheduler(t *testing.T) {
	ex, err := NewExecutor(backendOpts()...)
	require.NoError(t, err)
	defer func() { require.NoError(t, ex.Close()) }()
	schedulerWorkload(t, ex)
}

// schedulerWorkload runs on ex: tasks started from goroutines, a channel
// ping-pong with sleeps, a blocking call, a deadline ending an hour-long
// sleep; it asserts every result.
func schedulerWorkload(t *testing.T, ex *Executor) {
	var wg sync.WaitGroup
	sums := make([]int, 4)
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
		b, err := Blocking(tk, func() (int, error) { time.Sleep(2 * time.Millisecond); return 1000, nil })
		if err != nil {
			return 0, err
		}
		ctx, cancel := context.WithTimeout(tk.Context(), 10*time.Millisecond)
		defer cancel()
		sh := SpawnContext(ctx, tk, func(tk *T) (struct{}, error) { return struct{}{}, tk.Sleep(time.Hour) })
		if _, err := sh.Join(tk); !errors.Is(err, context.DeadlineExceeded) {
			return 0, errors.New("the hour-long sleep did not end at its deadline: " + errString(err))
		}
		return sum + b, nil
	})
	require.NoError(t, err)
	require.Equal(t, 20*21/2+1000, got)
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
