//go:build linux

package task

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// hangGuardCtx bounds a wait that only a bug would make long.
func hangGuardCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestHandleWaitServes: Handle.Wait serves the handles of SpawnOn, Go and
// SpawnAt (on another executor or the same one); a Spawn handle gets an
// *ArgError.
func TestHandleWaitServes(t *testing.T) {
	rt := newRuntime(t, 2)
	a, b := rt.Executors()[0], rt.Executors()[1]
	ctx := hangGuardCtx(t)
	seven := func(tk *T) (int, error) { return 7, tk.Nop() }

	v, err := SpawnOn(ctx, a, seven).Wait(ctx)
	require.NoError(t, err)
	require.Equal(t, 7, v)
	v, err = Go(ctx, rt, seven).Wait(ctx)
	require.NoError(t, err)
	require.Equal(t, 7, v)

	type handles struct{ other, same, spawned *Handle[int] }
	hs, err := Run(ctx, a, func(tk *T) (handles, error) {
		hs := handles{SpawnAt(tk, b, seven), SpawnAt(tk, a, seven), Spawn(tk, seven)}
		_, err := hs.spawned.Join(tk)
		return hs, err
	})
	require.NoError(t, err)
	for _, h := range []*Handle[int]{hs.other, hs.same} {
		v, err = h.Wait(ctx)
		require.NoError(t, err)
		require.Equal(t, 7, v)
	}
	_, err = hs.spawned.Wait(ctx)
	var ae *ArgError
	require.ErrorAs(t, err, &ae)
	require.ErrorIs(t, err, unix.EINVAL)
	require.ErrorContains(t, err, "was not started with SpawnOn, Go or SpawnAt")
}

// TestGoContext: Go's ctx is the task's context (it cancels the operation
// the task waits on), Wait's ctx bounds only the wait, and a task whose
// ctx is done before it starts still runs, its awaits failing with ctx's
// error.
func TestGoContext(t *testing.T) {
	rt := newRuntime(t, 1)
	r, _ := pipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := Go(ctx, rt, func(tk *T) (int, error) { return tk.Read(r, make([]byte, 1), CurrentPos) })

	waitCtx, stopWaiting := context.WithCancel(context.Background())
	stopWaiting()
	_, err := h.Wait(waitCtx)
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, h.Done(), "a Wait whose ctx ended stopped the task (nothing was ever written to the pipe)")

	cancel()
	_, err = h.Wait(hangGuardCtx(t))
	require.ErrorIs(t, err, context.Canceled)
	var oe *OpError
	require.ErrorAs(t, err, &oe, "the read was cancelled, and said so")

	ran, err := Go(ctx, rt, func(tk *T) (bool, error) { return true, tk.Nop() }).Wait(hangGuardCtx(t))
	require.True(t, ran, "the task ran although its ctx was done")
	require.ErrorIs(t, err, context.Canceled)
}

// TestGroupWaitCancelledReturnsFirst: a cancelled task's Group.Wait
// returns its context's error without waiting for the group's tasks,
// which it cancels; they finish afterwards, and a Wait from a task that
// is not cancelled waits for them. (The waiter is not the group's maker
// here, so that only the group's own cancel reaches its task.)
func TestGroupWaitCancelledReturnsFirst(t *testing.T) {
	ex := newExec(t)
	r, _ := pipe(t)
	var waitErr, lastErr error
	childDone, doneAtReturn := false, true
	err := runTask(t, ex, func(tk *T) error {
		g := NewGroup(tk, false)
		g.Go(tk, func(tk *T) error {
			_, err := tk.Read(r, make([]byte, 1), CurrentPos) // nothing is written: only a cancel ends it
			childDone = true
			return err
		})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		inWait := false
		waiter := SpawnContext(ctx, tk, func(tk *T) (struct{}, error) {
			inWait = true
			waitErr = g.Wait(tk)
			doneAtReturn = childDone
			return struct{}{}, nil
		})
		for !inWait {
			tk.Yield()
		}
		cancel()
		if _, err := waiter.Join(tk); err != nil {
			return err
		}
		lastErr = g.Wait(tk)
		return nil
	})
	require.NoError(t, err)
	require.ErrorIs(t, waitErr, context.Canceled)
	require.False(t, doneAtReturn, "Wait waited for the group's task")
	require.True(t, childDone)
	require.ErrorIs(t, lastErr, context.Canceled, "the group's task was cancelled by the first Wait")
	require.False(t, errors.Is(lastErr, context.DeadlineExceeded))
}

// TestOpenPathError: t.Open's error is os.Open's form, an *os.PathError
// with the path and the bare cause, so os.IsNotExist holds; a cancelled
// open says so the same way. (Openat keeps the *OpError.)
func TestOpenPathError(t *testing.T) {
	ex := newExec(t)
	missing := filepath.Join(t.TempDir(), "missing")
	err := runTask(t, ex, func(tk *T) error { _, err := tk.Open(missing, unix.O_RDONLY, 0); return err })
	require.True(t, os.IsNotExist(err), "%v", err)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.ErrorIs(t, err, unix.ENOENT)
	var pe *os.PathError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, &os.PathError{Op: "open", Path: missing, Err: unix.ENOENT}, pe)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Run(hangGuardCtx(t), ex, func(tk *T) (int, error) {
		return SpawnContext(ctx, tk, func(tk *T) (int, error) { return tk.Open(missing, unix.O_RDONLY, 0) }).Join(tk)
	})
	require.ErrorAs(t, err, &pe)
	require.Equal(t, &os.PathError{Op: "open", Path: missing, Err: context.Canceled}, pe)
}

// Run returns only after the task returned, also when ctx ends first: the
// task's defers have run (here: the fd it closes is closed), and Run
// returns what the task returned (its await's ctx error).
func TestRunWaitsForTheTask(t *testing.T) {
	ex := newExec(t)
	for range 20 {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		rfd, err := unix.Dup(int(r.Fd()))
		require.NoError(t, err)
		r.Close()
		ctx, cancel := context.WithCancel(context.Background())
		parked := make(chan struct{})
		go func() {
			<-parked
			time.Sleep(time.Millisecond) // most rounds: parked in the read
			cancel()
		}()
		_, err = Run(ctx, ex, func(tk *T) (int, error) {
			defer unix.Close(rfd)
			close(parked)
			return tk.Read(rfd, make([]byte, 1), CurrentPos) // nothing comes
		})
		require.ErrorIs(t, err, context.Canceled)
		_, ferr := unix.FcntlInt(uintptr(rfd), unix.F_GETFD, 0)
		require.ErrorIs(t, ferr, unix.EBADF, "Run returned before the task's defer closed its fd")
		w.Close()
	}
}
