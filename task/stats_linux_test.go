//go:build linux

package task

import (
	"encoding/json"
	"expvar"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The counters count what ran: tasks spawned, file (pipe) reads and
// writes, a sleep, a socket round trip; the runtime sums its executors,
// and Publish serves the same as an expvar.
// statsRuns counts TestStats runs in this process.
var statsRuns int

func TestStats(t *testing.T) {
	rt := newRuntime(t, 2)
	ex := rt.Executors()[0]
	before, err := ex.Stats()
	require.NoError(t, err)
	pr, pw := pipe(t)
	a, b := socketPair(t)
	err = runTask(t, ex, func(tk *T) error {
		for i := 0; i < 3; i++ {
			h := Spawn(tk, func(tk *T) (int, error) { return tk.Write(pw, []byte("x"), CurrentPos) })
			if _, err := tk.Read(pr, make([]byte, 1), CurrentPos); err != nil {
				return err
			}
			if _, err := h.Join(tk); err != nil {
				return err
			}
		}
		if _, err := tk.Send(a, []byte("y"), 0); err != nil {
			return err
		}
		if _, err := tk.Recv(b, make([]byte, 1), 0); err != nil {
			return err
		}
		return tk.Sleep(time.Millisecond)
	})
	require.NoError(t, err)
	after, err := ex.Stats()
	require.NoError(t, err)
	require.Equal(t, rt.Backend(), after.Backend)
	require.Equal(t, 1, after.Executors)
	require.GreaterOrEqual(t, after.TasksSpawned-before.TasksSpawned, uint64(4), "Run's task and three spawned")
	require.Zero(t, after.TasksLive)
	file := after.Ops["file"].Completed - before.Ops["file"].Completed
	require.GreaterOrEqual(t, file, uint64(3), "the pipe reads (writes may complete without a wait)")
	require.GreaterOrEqual(t, after.Ops["net"].Completed-before.Ops["net"].Completed, uint64(1))
	require.Equal(t, uint64(1), after.Ops["timer"].Completed-before.Ops["timer"].Completed)
	for k, v := range after.Ops {
		require.Equal(t, v.Submitted, v.Completed, "class %s: nothing in flight", k)
	}
	require.Zero(t, after.CQOverflows)

	sum := rt.Stats()
	require.Equal(t, 2, sum.Executors)
	require.GreaterOrEqual(t, sum.TasksSpawned, after.TasksSpawned)

	// expvar names live for the process: each run (-count) takes a new one.
	statsRuns++
	name := fmt.Sprintf("uring_task_test_%s_%s_%d", t.Name(), rt.Backend().Kind, statsRuns)
	require.NoError(t, rt.Publish(name))
	require.ErrorIs(t, rt.Publish(name), ErrPublished)
	var got Stats
	require.NoError(t, json.Unmarshal([]byte(expvar.Get(name).String()), &got))
	require.Equal(t, 2, got.Executors)
	require.GreaterOrEqual(t, got.TasksSpawned, after.TasksSpawned)

	_, err = (*Executor)(nil).Stats()
	require.ErrorContains(t, err, "Executor.Stats")
	require.Equal(t, Backend{}, (*Executor)(nil).Backend())

	// From a task of its own executor, Stats would deadlock: an error.
	err = runTask(t, ex, func(tk *T) error { _, err := ex.Stats(); return err })
	require.ErrorIs(t, err, ErrWouldDeadlock)
}
