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

func TestCancelInFlight(t *testing.T) {
	ex := newExec(t)
	r, _ := pipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, ex, func(tk *T) (int, error) {
		return tk.Read(r, make([]byte, 1), CurrentPos)
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, time.Since(start), 2*time.Second)
	// The executor still works, and the slot came back.
	require.NoError(t, runTask(t, ex, func(tk *T) error { return tk.Nop() }))
	// Run returned at the cancellation; the read's CQE may come later.
	require.Eventually(t, func() bool { return onExec(t, ex, func() int { return ex.busy }) == 0 }, 2*time.Second, time.Millisecond)
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
		_, err := tk.Open("/nonexistent/x", unix.O_RDONLY, 0)
		return err
	})
	require.ErrorIs(t, err, unix.ENOENT)
	var oe *OpError
	require.True(t, errors.As(err, &oe))
	require.Equal(t, "openat", oe.Name)
}
