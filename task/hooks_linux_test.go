//go:build linux

package task

import (
	"context"
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
	require.False(t, newExec(t).RingConnWaits())
	ex := newExec(t, WithRingConnWaits())
	require.Equal(t, ex.Backend().Kind == BackendIOUring, ex.RingConnWaits())
}

// A Notifier wakes a task from goroutines: a Notify before the Wait is
// remembered (several count as one), a Notify wakes a parked Wait, a round
// trip allocates nothing; the task's context and Close end a Wait.
func TestNotifier(t *testing.T) {
	ex := newExec(t)
	n := NewNotifier(ex)
	n.Notify()
	n.Notify()
	woke := make(chan struct{}, 1)
	req := make(chan int, 1)
	h := SpawnOn(context.Background(), ex, func(tk *T) (int, error) {
		if err := n.Wait(tk); err != nil { // at once: notified before
			return 0, err
		}
		woke <- struct{}{}
		sum := 0
		for {
			if err := n.Wait(tk); err != nil {
				return sum, err
			}
			v := <-req // sent before Notify
			if v < 0 {
				return sum, nil
			}
			sum += v
			woke <- struct{}{}
		}
	})
	<-woke
	round := func(v int) {
		req <- v
		n.Notify()
		<-woke
	}
	round(1)
	allocs := testing.AllocsPerRun(200, func() { round(1) })
	if raceEnabled && onFallback() {
		// The fallback's wake reads its eventfd into a stack buffer that
		// the race detector's instrumentation of unix.Read moves to the
		// heap: one allocation per wake, under -race only.
		t.Logf("%v allocations per round (-race, fallback)", allocs)
	} else {
		require.Zero(t, allocs, "a Notify and the Wait it ends")
	}
	req <- -1
	n.Notify()
	sum, err := h.Wait(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1+201, sum) // AllocsPerRun runs once more than asked

	_, err = Run(context.Background(), newExec(t), func(tk *T) (int, error) { return 0, n.Wait(tk) })
	var ae *ArgError
	require.ErrorAs(t, err, &ae, "a task of another executor")

	ctx, cancel := context.WithCancel(context.Background())
	hc := SpawnOn(ctx, ex, func(tk *T) (int, error) { return 0, n.Wait(tk) })
	time.Sleep(5 * time.Millisecond)
	cancel()
	_, err = hc.Wait(context.Background())
	require.ErrorIs(t, err, context.Canceled)

	ex2, err := NewExecutor(backendOpts()...)
	require.NoError(t, err)
	n2 := NewNotifier(ex2)
	parked := make(chan struct{})
	h2 := SpawnOn(context.Background(), ex2, func(tk *T) (int, error) { close(parked); return 0, n2.Wait(tk) })
	<-parked
	require.NoError(t, ex2.Close())
	_, err = h2.Wait(context.Background())
	require.ErrorIs(t, err, ErrClosed)
	n2.Notify() // after the executor stopped: nothing
}
