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

func TestCancelBeforeSubmit(t *testing.T) {
	ex := newExec(t)
	r, _ := pipe(t)
	err := runTask(t, ex, func(tk *T) error {
		ctx, cancel := context.WithCancel(tk.Context())
		cancel()
		return tk.Scope(ctx, func(tk *T) error {
			_, err := tk.Read(r, make([]byte, 1), CurrentPos)
			return err
		})
	})
	require.ErrorIs(t, err, context.Canceled)
	var oe *OpError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "read", oe.Name)
}

// hangGuard bounds a wait that only a bug makes long (a cancellation or a
// wakeup that never arrives); it is never what a test checks, and it is
// wide enough for a loaded machine or qemu without KVM.
const hangGuard = time.Minute

// within returns what arrives on c; it fails the test, saying what never
// happened, when nothing does within the hang guard.
func within[R any](t *testing.T, c <-chan R, what string) R {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(hangGuard):
		t.Fatal(what)
		panic("unreachable")
	}
}

// waitOnExec polls cond on ex's thread until it holds (within the hang
// guard).
func waitOnExec(t *testing.T, ex *Executor, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !onExec(t, ex, cond) {
		require.True(t, time.Now().Before(deadline), "never: %s", what)
		time.Sleep(time.Millisecond)
	}
}

// waitBusy waits until ex has n operations outstanding.
func waitBusy(t *testing.T, ex *Executor, n int) {
	t.Helper()
	waitOnExec(t, ex, sprintf("%d operations outstanding", n), func() bool { return ex.busy() == n })
}

// A read nobody will ever satisfy ends with context.Canceled when its
// context is cancelled while it is in flight (only the cancellation can
// end it), and its slot comes back.
func TestCancelInFlight(t *testing.T) {
	ex := newExec(t)
	r, _ := pipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := make(chan error, 1)
	go func() {
		_, err := Run(ctx, ex, func(tk *T) (int, error) {
			return tk.Read(r, make([]byte, 1), CurrentPos)
		})
		res <- err
	}()
	waitBusy(t, ex, 1) // the read is in flight
	cancel()
	require.ErrorIs(t, within(t, res, "cancelling the context did not end the read in flight"), context.Canceled)
	// The executor still works, and the slot came back.
	require.NoError(t, runTask(t, ex, func(tk *T) error { return tk.Nop() }))
	// Run returned at the cancellation; the read's CQE may come later.
	waitBusy(t, ex, 0)
}

func TestCancelAfterCompletion(t *testing.T) {
	ex := newExec(t)
	r, w := pipe(t)
	var n int
	err := runTask(t, ex, func(tk *T) error {
		ctx, cancel := context.WithCancel(tk.Context())
		err := tk.Scope(ctx, func(tk *T) error {
			if _, err := tk.Write(w, []byte("ab"), CurrentPos); err != nil {
				return err
			}
			var err error
			n, err = tk.Read(r, make([]byte, 2), CurrentPos)
			return err
		})
		cancel() // too late: the result stands
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 2, n)
}

func TestDeadlineLinkTimeout(t *testing.T) {
	ex := newExec(t)
	r, _ := pipe(t)
	err := runTask(t, ex, func(tk *T) error {
		ctx, cancel := context.WithTimeout(tk.Context(), 30*time.Millisecond)
		defer cancel()
		return tk.Scope(ctx, func(tk *T) error {
			_, err := tk.Read(r, make([]byte, 1), CurrentPos)
			return err
		})
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestCancelSleepAndChanWait(t *testing.T) {
	ex := newExec(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := Run(ctx, ex, func(tk *T) (int, error) { return 0, tk.Sleep(time.Hour) })
	require.ErrorIs(t, err, context.Canceled)

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = Run(ctx, ex, func(tk *T) (int, error) {
		c := NewChan[int](tk, 0)
		v, _, err := c.Recv(tk)
		return v, err
	})
	require.ErrorIs(t, err, context.Canceled)
}

func TestSleep(t *testing.T) {
	ex := newExec(t)
	start := time.Now()
	require.NoError(t, runTask(t, ex, func(tk *T) error { return tk.Sleep(20 * time.Millisecond) }))
	require.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
}

func TestOpErrorErrno(t *testing.T) {
	ex := newExec(t)
	err := runTask(t, ex, func(tk *T) error {
		_, err := tk.Openat(unix.AT_FDCWD, "/nonexistent/x", unix.O_RDONLY, 0)
		return err
	})
	require.ErrorIs(t, err, unix.ENOENT)
	var oe *OpError
	require.True(t, errors.As(err, &oe))
	require.Equal(t, "openat", oe.Name)
}
