//go:build linux

package task

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The steady-state await path allocates nothing.
func TestAwaitAllocs(t *testing.T) {
	requireRing(t) // the fallback may run a file write on a goroutine (no RWF_NOWAIT on 5.10\'s tmpfs); its socket path is TestConnAllocs
	ex := newExec(t)
	r, w := pipe(t)
	var nop, read, write, yield float64
	err := runTask(t, ex, func(tk *T) error {
		buf := make([]byte, 64)
		msg := []byte("x")
		// Warm up: slots, pinner, queues. Each result is checked: a lost
		// write would leave the read below waiting for ever.
		for i := 0; i < 10; i++ {
			if err := tk.Nop(); err != nil {
				return err
			}
			if _, err := tk.Write(w, msg, CurrentPos); err != nil {
				return err
			}
			if _, err := tk.Read(r, buf, CurrentPos); err != nil {
				return err
			}
		}
		nop = testing.AllocsPerRun(200, func() { _ = tk.Nop() })
		write = testing.AllocsPerRun(200, func() { _, _ = tk.Write(w, msg, CurrentPos) })
		read = testing.AllocsPerRun(200, func() { _, _ = tk.Read(r, buf[:1], CurrentPos) })
		yield = testing.AllocsPerRun(200, func() { tk.Yield() })
		return nil
	})
	require.NoError(t, err)
	require.Zero(t, nop, "Nop allocs")
	require.Zero(t, write, "Write allocs")
	require.Zero(t, read, "Read allocs")
	require.Zero(t, yield, "Yield allocs")
}

// Task records are pooled: a spawn allocates only its small handle, and a
// handle whose record was reused by later tasks still reports its own
// task (the record's generation moved on).
func TestSpawnPooledRecords(t *testing.T) {
	ex := newExec(t)
	var allocs float64
	err := runTask(t, ex, func(tk *T) error {
		first := Spawn(tk, func(*T) (int, error) { return 42, nil })
		if v, err := first.Join(tk); err != nil || v != 42 {
			return errf("first: %d %v", v, err)
		}
		rec := first.t
		reused := false
		for i := 0; i < 100; i++ {
			h := Spawn(tk, func(*T) (int, error) { return i, nil })
			reused = reused || h.t == rec
			if v, err := h.Join(tk); err != nil || v != i {
				return errf("task %d: %d %v", i, v, err)
			}
		}
		if !reused {
			return errf("the first record was never reused")
		}
		if !first.Done() {
			return errf("a handle whose record was reused is not done")
		}
		if v, err := first.Join(tk); err != nil || v != 42 {
			return errf("first again: %d %v", v, err)
		}
		// A handle of a task that has not run yet, on a reused record.
		pending := Spawn(tk, func(tk *T) (int, error) { tk.Yield(); return 7, nil })
		if pending.Done() {
			return errf("a queued task is done")
		}
		if v, err := pending.Join(tk); err != nil || v != 7 {
			return errf("pending: %d %v", v, err)
		}
		allocs = testing.AllocsPerRun(200, func() {
			_, _ = Spawn(tk, empty).Join(tk)
		})
		return nil
	})
	require.NoError(t, err)
	require.LessOrEqual(t, allocs, 1.0, "a spawn allocates more than its handle")
}
