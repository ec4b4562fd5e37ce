//go:build linux

package task

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Spawning in a loop keeps at most spawnBacklog tasks queued: the spawner
// runs the backlog as it goes, each task runs once, and records are reused.
func TestSpawnBacklogBounded(t *testing.T) {
	ex := newExec(t)
	const n = 5000
	runs := make([]int, n)
	var pooled int
	_, err := Run(context.Background(), ex, func(tk *T) (struct{}, error) {
		hs := make([]*Handle[int], n)
		for i := range hs {
			hs[i] = Spawn(tk, func(*T) (int, error) { runs[i]++; return i, nil })
			if q := tk.ex.newq.len(); q > spawnBacklog {
				return struct{}{}, errf("after spawn %d: %d queued", i, q)
			}
		}
		if done := n - tk.ex.newq.len(); done < n-spawnBacklog {
			return struct{}{}, errf("only %d ran while spawning", done)
		}
		for i, h := range hs {
			if v, err := h.Join(tk); err != nil || v != i {
				return struct{}{}, errf("join %d: %d %v", i, v, err)
			}
		}
		pooled = len(tk.ex.freeT)
		return struct{}{}, nil
	})
	require.NoError(t, err)
	for i, r := range runs {
		require.Equal(t, 1, r, "task %d", i)
	}
	require.LessOrEqual(t, pooled, spawnBacklog+8, "a handful of records served them all")
}

// Backlog tasks that park on I/O hand the spawner back its coroutine: it
// goes on spawning, and they finish when their data comes.
func TestSpawnBacklogParkedTasks(t *testing.T) {
	ex := newExec(t)
	pr, pw := pipe(t)
	const n = 3 * spawnBacklog
	_, err := Run(context.Background(), ex, func(tk *T) (struct{}, error) {
		hs := make([]*Handle[int], n)
		for i := range hs {
			hs[i] = Spawn(tk, func(tk *T) (int, error) { return tk.Read(pr, make([]byte, 1), CurrentPos) })
		}
		if _, err := unix.Write(pw, make([]byte, n)); err != nil {
			return struct{}{}, err
		}
		for i, h := range hs {
			if v, err := h.Join(tk); err != nil || v != 1 {
				return struct{}{}, errf("join %d: %d %v", i, v, err)
			}
		}
		return struct{}{}, nil
	})
	require.NoError(t, err)
}
