//go:build linux

package goio

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

	"github.com/pure-uring/uring/task"
)

// A blocking Runtime call from a task of one executor returns
// task.ErrWouldDeadlock also when it would go to another executor of the
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
		f, err = On(rt).OpenFile(path, os.O_RDWR, 0)
		require.NoError(t, err)
	}
	src, err := On(rt).OpenFile(path, os.O_RDONLY, 0)
	require.NoError(t, err)
	defer src.Close()
	before, err := b.Stats()
	require.NoError(t, err)

	errs := map[string]error{}
	var picked []*task.Executor
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a guard: a call that blocked would hold a's thread
	defer cancel()
	_, err = task.Run(tctx, a, func(tk *task.T) (struct{}, error) {
		// The runtime's own calls take NextExecutor: after a, b.
		toB := func() {
			for rt.NextExecutor() != a {
			}
			picked = append(picked, rt.NextExecutor())
			for rt.NextExecutor() != a {
			}
		}
		var st unix.Statx_t
		toB()
		_, errs["Env.Pread"] = On(rt).Pread(ctx, r, make([]byte, 1), task.CurrentPos)
		toB()
		_, errs["Env.Pwrite"] = On(rt).Pwrite(ctx, f.Fd(), []byte("x"), 0)
		toB()
		_, errs["Env.Open"] = On(rt).Open(ctx, path, unix.O_RDONLY, 0)
		toB()
		errs["Env.Fsync"] = On(rt).Fsync(ctx, f.Fd())
		toB()
		errs["Env.CloseFd"] = On(rt).CloseFd(ctx, -1)
		toB()
		_, _, errs["Env.Accept"] = On(rt).Accept(ctx, -1)
		toB()
		_, errs["Env.Recv"] = On(rt).Recv(ctx, r, make([]byte, 1))
		toB()
		_, errs["Env.Send"] = On(rt).Send(ctx, r, []byte("x"))
		toB()
		errs["Env.Statx"] = On(rt).Statx(ctx, path, &st)
		toB()
		_, errs["Env.OpenFile"] = On(rt).OpenFile(path, os.O_RDONLY, 0)
		toB()
		_, errs["Env.Dial"] = On(rt).Dial(ctx, "tcp", ln.Addr().String())
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
		require.ErrorIs(t, err, task.ErrWouldDeadlock, name)
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
	f, err := On(rt).OpenFile(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer f.Close()
	var other *task.Executor
	for _, ex := range rt.Executors() {
		if ex != f.ex {
			other = ex
		}
	}
	for rt.NextExecutor() != f.ex { // the next pick would be the other executor
	}
	before, err := other.Stats()
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	after, err := other.Stats()
	require.NoError(t, err)
	require.Equal(t, before.Ops["fsync"].Submitted, after.Ops["fsync"].Submitted, "the other executor ran no fsync")
	require.Equal(t, before.TasksSpawned, after.TasksSpawned, "nor any task")
}

// A task of a closing executor (told task.ErrClosed, still running in the
// close wait) that makes a blocking call gets task.ErrWouldDeadlock instead of
// holding the thread the shutdown needs.
func TestBlockingCallFromClosingExecutorsTask(t *testing.T) {
	rt, err := task.NewRuntime(1, backendOpts()...)
	require.NoError(t, err)
	ex := rt.Executors()[0]
	parked := make(chan struct{})
	var sleepErr, callErr error
	h := task.SpawnOn(context.Background(), ex, func(tk *task.T) (int, error) {
		close(parked)
		sleepErr = tk.Sleep(time.Hour)
		callErr = On(rt).CloseFd(context.Background(), -1) // cleanup after task.ErrClosed: lands on ex itself
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
	require.ErrorIs(t, sleepErr, task.ErrClosed)
	require.ErrorIs(t, callErr, task.ErrWouldDeadlock)
	require.False(t, errors.Is(callErr, task.ErrClosed))
}
