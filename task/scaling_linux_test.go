//go:build linux

package task

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// After a burst of parked tasks, the executor stops the worker coroutines
// that stayed idle (keeping minIdle): the coroutines (goroutines) of the
// burst go.
func TestIdleWorkersTrimmedAfterBurst(t *testing.T) {
	requireBurstTrimmed(t, newExec(t), 2000, func(tk *T) error { return tk.Sleep(time.Millisecond) })
}

// requireBurstTrimmed parks n tasks on a channel at once (a worker
// coroutine each), releases them, and checks that after two more sleeps of
// the executor (sleep runs as a task: the first sets the low-water mark,
// the second trims what stayed idle in between) at most minIdle+2 idle
// workers are left.
func requireBurstTrimmed(t *testing.T, ex *Executor, n int, sleep func(*T) error) {
	t.Helper()
	require.NoError(t, ex.setTrimEveryForTest(0)) // every sleep checks (the default is once a second)
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
	peak := onExec(t, ex, ex.idleWorkersForTest)
	require.GreaterOrEqual(t, peak, n, "the burst left a worker per parked task")
	for range 2 {
		require.NoError(t, runTask(t, ex, sleep))
	}
	// An executor trims before it sleeps the workers that stayed idle since
	// its previous sleep: the first sleep after the burst marks them, the
	// second trims them. A task's result reaches the test before its
	// executor goes back to sleep, so wait for each sleep.
	requireAsleep(t, ex)
	onExec(t, ex, func() struct{} { return struct{}{} }) // wakes it
	requireAsleep(t, ex)
	idle, trimmed := onExec(t, ex, ex.idleWorkersForTest), onExec(t, ex, ex.trimmedForTest)
	state := onExec(t, ex, func() string {
		parks := uint64(0)
		if c := coreOf(ex); c != nil {
			parks = c.Stats().Parks
		}
		return sprintf("trimmed %d, idleLow %d, trimEvery %v, runnable %v (readyq %d, newq %d, readyOnStack %d), busy %d, parks %d",
			ex.stats.trimmed, ex.idleLow, ex.trimEvery, ex.runnable(), ex.readyq.len(), ex.newq.len(), ex.readyOnStack, ex.busy(), parks)
	})
	require.LessOrEqual(t, idle, minIdle+2, "idle workers after the burst (%s)", state)
	require.GreaterOrEqual(t, trimmed, n-minIdle-2)
}

// A context's cancellation looks only at the tasks waiting on that
// context, not at every live task.
func TestCancelPokesOnlyItsTasks(t *testing.T) {
	ex := newExec(t)
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	ctxB, cancelB := context.WithCancel(context.Background())
	const parked = 500
	var errB error
	require.NoError(t, runTask(t, ex, func(tk *T) error {
		ch := NewChan[int](tk, 0)
		for range parked {
			SpawnContext(ctxA, tk, func(tk *T) (int, error) { v, _, err := ch.Recv(tk); return v, err })
		}
		hb := SpawnContext(ctxB, tk, func(tk *T) (int, error) { return 0, tk.Sleep(time.Hour) })
		tk.Yield() // all of them park
		before := ex.pokesForTest()
		cancelB()
		_, errB = hb.Join(tk)
		pokes := ex.pokesForTest() - before
		if pokes != 1 {
			return errf("cancelling B looked at %d tasks, want 1", pokes)
		}
		ch.Close()
		return nil
	}))
	require.ErrorIs(t, errB, context.Canceled)
}
