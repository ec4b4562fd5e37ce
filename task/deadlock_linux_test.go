//go:build linux

package task

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
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
		_, errs["Runtime.ReadAt"] = rt.ReadAt(ctx, 0, make([]byte, 1), 0)
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

// A blocking Runtime call from a task of one executor returns
// ErrWouldDeadlock also when it would go to another executor of the
// runtime (it would hold the caller's thread while that one works), and
// nothing of it reaches the other executor.
func TestBlockingCallsFromOtherExecutorsTaskRefused(t *testing.T) {
	rt := newRuntime(t, 2)
	a, b := rt.Executors()[0], rt.Executors()[1]
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(path, []byte("data"), 0o600))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	r, _ := pipe(t)
	// A File of b: the runtime picks round robin.
	var f *File
	for f == nil || f.ex != b {
		if f != nil {
			require.NoError(t, f.Close())
		}
		f, err = rt.OpenFile(path, os.O_RDWR, 0)
		require.NoError(t, err)
	}
	src, err := rt.OpenFile(path, os.O_RDONLY, 0)
	require.NoError(t, err)
	defer src.Close()
	before, err := b.Stats()
	require.NoError(t, err)

	errs := map[string]error{}
	var picked []*Executor
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a guard: a call that blocked would hold a's thread
	defer cancel()
	_, err = Run(tctx, a, func(tk *T) (struct{}, error) {
		// The runtime's own calls pick with Pick: after a, b.
		toB := func() {
			for rt.Pick() != a {
			}
			picked = append(picked, rt.Pick())
			for rt.Pick() != a {
			}
		}
		var st unix.Statx_t
		toB()
		_, errs["Runtime.ReadAt"] = rt.ReadAt(ctx, r, make([]byte, 1), CurrentPos)
		toB()
		_, errs["Runtime.WriteAt"] = rt.WriteAt(ctx, f.Fd(), []byte("x"), 0)
		toB()
		_, errs["Runtime.Open"] = rt.Open(ctx, path, unix.O_RDONLY, 0)
		toB()
		errs["Runtime.Fsync"] = rt.Fsync(ctx, f.Fd())
		toB()
		errs["Runtime.CloseFd"] = rt.CloseFd(ctx, -1)
		toB()
		_, _, errs["Runtime.Accept"] = rt.Accept(ctx, -1)
		toB()
		_, errs["Runtime.Recv"] = rt.Recv(ctx, r, make([]byte, 1))
		toB()
		_, errs["Runtime.Send"] = rt.Send(ctx, r, []byte("x"))
		toB()
		errs["Runtime.Statx"] = rt.Statx(ctx, path, &st)
		toB()
		_, errs["Runtime.OpenFile"] = rt.OpenFile(path, os.O_RDONLY, 0)
		toB()
		_, errs["Runtime.Dial"] = rt.Dial(ctx, "tcp", ln.Addr().String())
		_, errs["File.WriteAt"] = f.WriteAt([]byte("x"), 0)
		_, errs["File.Write"] = f.Write([]byte("x"))
		errs["File.Sync"] = f.Sync()
		_, errs["File.ReadFrom"] = f.ReadFrom(src)
		errs["File.Close"] = f.Close()
		return struct{}{}, nil
	})
	require.NoError(t, err, "the task returned: nothing blocked")
	for _, ex := range picked {
		require.Same(t, b, ex, "the calls were routed to the other executor")
	}
	require.Len(t, errs, 16)
	for name, err := range errs {
		require.ErrorIs(t, err, ErrWouldDeadlock, name)
	}
	after, err := b.Stats()
	require.NoError(t, err)
	require.Equal(t, before.TasksSpawned, after.TasksSpawned, "nothing ran on the other executor")

	// The refused Close left the file open and whole: it works from a
	// goroutine, and closes.
	n, err := f.ReadAt(make([]byte, 4), 0)
	require.NoError(t, err)
	require.Equal(t, 4, n)
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
	require.ErrorIs(t, f.Close(), os.ErrClosed)
}

// File.Sync runs on the file's own executor, as its other calls do,
// whatever the runtime would pick next.
func TestFileSyncOnItsExecutor(t *testing.T) {
	rt := newRuntime(t, 2)
	f, err := rt.OpenFile(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer f.Close()
	var other *Executor
	for _, ex := range rt.Executors() {
		if ex != f.ex {
			other = ex
		}
	}
	for rt.Pick() != f.ex { // the next pick would be the other executor
	}
	before, err := other.Stats()
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	after, err := other.Stats()
	require.NoError(t, err)
	require.Equal(t, before.Ops["fsync"].Submitted, after.Ops["fsync"].Submitted, "the other executor ran no fsync")
	require.Equal(t, before.TasksSpawned, after.TasksSpawned, "nor any task")
}

// A task of a closing executor (told ErrClosed, still running in the
// close wait) that makes a blocking call gets ErrWouldDeadlock instead of
// holding the thread the shutdown needs.
func TestBlockingCallFromClosingExecutorsTask(t *testing.T) {
	rt, err := NewRuntime(1, backendOpts()...)
	require.NoError(t, err)
	ex := rt.Executors()[0]
	parked := make(chan struct{})
	var sleepErr, callErr error
	h := SpawnOn(context.Background(), ex, func(tk *T) (int, error) {
		close(parked)
		sleepErr = tk.Sleep(time.Hour)
		callErr = rt.CloseFd(context.Background(), -1) // cleanup after ErrClosed: lands on ex itself
		return 0, nil
	})
	<-parked
	closed := make(chan error, 1)
	go func() { closed <- rt.Close() }()
	select {
	case err = <-closed:
	case <-time.After(30 * time.Second): // a guard against the hang, not a measurement
		t.Fatal("Runtime.Close never returned: the task's call held the executor's thread")
	}
	require.NoError(t, err)
	_, err = h.Wait(context.Background())
	require.NoError(t, err)
	require.ErrorIs(t, sleepErr, ErrClosed)
	require.ErrorIs(t, callErr, ErrWouldDeadlock)
	require.False(t, errors.Is(callErr, ErrClosed))
}
