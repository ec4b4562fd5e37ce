//go:build linux

package task

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// inlineRun runs fn as a task with a context that cannot be cancelled and
// returns its error and how many tasks ran inline in their joiner.
func inlineRun(t *testing.T, ex *Executor, fn func(tk *T) error) (int, error) {
	t.Helper()
	var inlined int
	_, err := Run(context.Background(), ex, func(tk *T) (struct{}, error) {
		before := tk.ex.stats.inlined
		err := fn(tk)
		inlined = tk.ex.stats.inlined - before
		return struct{}{}, err
	})
	return inlined, err
}

// Joining the task spawned last runs it inline, with its result; joining
// an earlier one waits while the later ones start (no stale queue entry,
// every task runs exactly once).
func TestJoinRunsLastSpawnInline(t *testing.T) {
	ex := newExec(t)
	runs := make([]int, 6)
	inlined, err := inlineRun(t, ex, func(tk *T) error {
		for i := range 3 {
			h := Spawn(tk, func(*T) (int, error) { runs[i]++; return i * 10, nil })
			if v, err := h.Join(tk); err != nil || v != i*10 {
				return errf("task %d: %d %v", i, v, err)
			}
		}
		// Three queued, joined oldest first: the first Join waits (the
		// others start in a row meanwhile), the rest are already done.
		hs := []*Handle[int]{}
		for i := 3; i < 6; i++ {
			hs = append(hs, Spawn(tk, func(*T) (int, error) { runs[i]++; return i * 10, nil }))
		}
		for k, h := range hs {
			if v, err := h.Join(tk); err != nil || v != (k+3)*10 {
				return errf("queued %d: %d %v", k, v, err)
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 3, inlined, "only the spawn-then-join ones")
	require.Equal(t, []int{1, 1, 1, 1, 1, 1}, runs)
	require.Zero(t, ex.newq.len())
}

// A task run inline that parks on an operation parks its joiner with it;
// the executor meanwhile starts the other queued task, whose write
// completes the inline task's read.
func TestInlineTaskParksAndOthersRun(t *testing.T) {
	ex := newExec(t)
	pr, pw := pipe(t)
	inlined, err := inlineRun(t, ex, func(tk *T) error {
		writer := Spawn(tk, func(tk *T) (int, error) {
			if err := tk.Sleep(5 * time.Millisecond); err != nil {
				return 0, err
			}
			return tk.Write(pw, []byte("ping"), CurrentPos)
		})
		reader := Spawn(tk, func(tk *T) (string, error) {
			b := make([]byte, 8)
			n, err := tk.Read(pr, b, CurrentPos)
			return string(b[:n]), err
		})
		got, err := reader.Join(tk) // inline: parks on the read
		if err != nil || got != "ping" {
			return errf("reader: %q %v", got, err)
		}
		if n, err := writer.Join(tk); err != nil || n != 4 {
			return errf("writer: %d %v", n, err)
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 1, inlined)
}

// A panic in a task run inline goes to its joiner, not through it.
func TestInlineTaskPanic(t *testing.T) {
	ex := newExec(t)
	inlined, err := inlineRun(t, ex, func(tk *T) error {
		_, err := Spawn(tk, func(tk *T) (int, error) {
			if err := tk.Nop(); err != nil {
				return 0, err
			}
			panic("inline boom")
		}).Join(tk)
		var perr *PanicError
		if !errors.As(err, &perr) || perr.Value != "inline boom" {
			return errf("join: %v", err)
		}
		return tk.Nop() // the joiner goes on
	})
	require.NoError(t, err)
	require.Equal(t, 1, inlined)
	require.NoError(t, runTask(t, ex, func(tk *T) error { return tk.Nop() }))
}

// Cancelling the joiner's context: a task sharing it runs inline and is
// cancelled with it, and Join reports the cancellation; a task with a
// context of its own is waited for, so Join returns at once while the
// task keeps running.
func TestInlineJoinCancellation(t *testing.T) {
	ex := newExec(t)
	pr, pw := pipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var inlined int
	h := SpawnOn(ctx, ex, func(tk *T) (struct{}, error) {
		before := tk.ex.stats.inlined
		defer func() { inlined = tk.ex.stats.inlined - before }()
		go func() { time.Sleep(20 * time.Millisecond); cancel() }()
		_, err := Spawn(tk, func(tk *T) (int, error) { return tk.Read(pr, make([]byte, 8), CurrentPos) }).Join(tk)
		return struct{}{}, err
	})
	_, err := h.Wait(context.Background())
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, inlined, "the shared-context task ran inline")

	// Its own context: the joiner leaves, the task reads on.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	var child *Handle[int]
	h2 := SpawnOn(ctx2, ex, func(tk *T) (struct{}, error) {
		child = SpawnContext(context.Background(), tk, func(tk *T) (int, error) { return tk.Read(pr, make([]byte, 8), CurrentPos) })
		go func() { time.Sleep(20 * time.Millisecond); cancel2() }()
		_, err := child.Join(tk)
		return struct{}{}, err
	})
	_, err = h2.Wait(context.Background())
	require.ErrorIs(t, err, context.Canceled)
	_, werr := unix.Write(pw, []byte("late"))
	require.NoError(t, werr)
	n, err := Run(context.Background(), ex, func(tk *T) (int, error) { return child.Join(tk) })
	require.NoError(t, err)
	require.Equal(t, 4, n, "the child kept running after its joiner left")
}

// Closing the executor while a task run inline waits on a read: the read
// is cancelled, the task and its joiner end with ErrClosed, Close returns.
func TestInlineTaskClose(t *testing.T) {
	ex, err := NewExecutor()
	require.NoError(t, err)
	pr, _ := pipe(t)
	h := SpawnOn(context.Background(), ex, func(tk *T) (int, error) {
		return Spawn(tk, func(tk *T) (int, error) { return tk.Read(pr, make([]byte, 8), CurrentPos) }).Join(tk)
	})
	waitBusy(t, ex, 1) // the inline task's read is in flight
	// A task still there after the close wait, or a read never completed,
	// would make Close return an error.
	closed := make(chan error, 1)
	go func() { closed <- ex.Close() }()
	require.NoError(t, within(t, closed, "Close never returned"))
	_, err = h.Wait(context.Background())
	require.ErrorIs(t, err, ErrClosed)
	<-ex.Done()
	require.Equal(t, 1, ex.stats.inlined, "the read waited in a task run inline by its joiner")
}
