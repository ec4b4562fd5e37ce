//go:build linux

package task

import (
	"fmt"
	"testing"
	"time"

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

// Task records are pooled: a spawn allocates nothing in steady state but
// its share of a block of handles, and a handle whose record was reused
// by later tasks still reports its own task (the record's generation
// moved on).
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
	require.Zero(t, allocs, "a spawn allocates more than its share of a block of handles")
}

// Handles come from blocks of handleSlabLen of one type: a run of spawns
// allocates a block per handleSlabLen tasks, a change of type starts a new
// block, and every handle keeps its own task's result.
func TestSpawnHandleBlocks(t *testing.T) {
	ex := newExec(t)
	var perRun float64
	err := runTask(t, ex, func(tk *T) error {
		ints := make([]*Handle[int], 0, 3*handleSlabLen)
		strs := make([]*Handle[string], 0, 3*handleSlabLen)
		for i := 0; i < 3*handleSlabLen; i++ {
			ints = append(ints, Spawn(tk, func(*T) (int, error) { return i, nil }))
			if i%5 == 0 { // interleaved: the block's type changes
				strs = append(strs, SpawnContext(tk.Context(), tk, func(*T) (string, error) { return fmt.Sprint("s", i), errf("e%d", i) }))
			}
		}
		for i, h := range ints {
			if v, err := h.Join(tk); err != nil || v != i {
				return errf("int task %d: %d %v", i, v, err)
			}
		}
		for k, h := range strs {
			i := 5 * k
			v, err := h.Join(tk)
			if v != fmt.Sprint("s", i) || err == nil || err.Error() != fmt.Sprintf("e%d", i) {
				return errf("string task %d: %q %v", i, v, err)
			}
		}
		hs := make([]*Handle[struct{}], 4*handleSlabLen)
		perRun = testing.AllocsPerRun(50, func() {
			for i := range hs {
				hs[i] = Spawn(tk, empty)
			}
			for _, h := range hs {
				_, _ = h.Join(tk)
			}
		})
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 4.0, perRun, "allocations for 4 blocks' worth of spawns")
}

// An executor that waits lets go of its block of handles: a dropped
// handle's result is not kept by the executor while it idles.
func TestSpawnHandleBlockDroppedOnWait(t *testing.T) {
	ex := newExec(t)
	err := runTask(t, ex, func(tk *T) error {
		if _, err := Spawn(tk, empty).Join(tk); err != nil {
			return err
		}
		if ex.slab == nil {
			return errf("no block after a spawn")
		}
		if err := tk.Sleep(time.Millisecond); err != nil { // nothing else to run: the executor waits
			return err
		}
		if ex.slab != nil {
			return errf("the executor kept its block of handles across a wait")
		}
		return nil
	})
	require.NoError(t, err)
}
