//go:build linux

package task

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
)

func TestGroupWaitAll(t *testing.T) {
	ex := newExec(t)
	sum := 0
	err := runTask(t, ex, func(tk *T) error {
		g := NewGroup(tk, false)
		for i := 1; i <= 10; i++ {
			g.Go(tk, func(tk *T) error {
				if err := tk.Sleep(time.Duration(i) * time.Millisecond); err != nil {
					return err
				}
				sum += i
				return nil
			})
		}
		return g.Wait(tk)
	})
	require.NoError(t, err)
	require.Equal(t, 55, sum)
}

func TestGroupFailFastCancelsRest(t *testing.T) {
	ex := newExec(t)
	boom := errors.New("boom")
	var slow error
	// runTask's 60 s context is the hang guard: had the group not cancelled
	// the hour-long sleep, it would end with DeadlineExceeded, not Canceled.
	err := runTask(t, ex, func(tk *T) error {
		g := NewGroup(tk, true)
		g.Go(tk, func(tk *T) error { slow = tk.Sleep(time.Hour); return slow })
		g.Go(tk, func(tk *T) error { _ = tk.Sleep(5 * time.Millisecond); return boom })
		return g.Wait(tk)
	})
	require.ErrorIs(t, err, boom)
	require.ErrorIs(t, slow, context.Canceled)
	require.NotErrorIs(t, slow, context.DeadlineExceeded)
}

func TestFirstOf(t *testing.T) {
	ex := newExec(t)
	var loser error
	v, err := Run(context.Background(), ex, func(tk *T) (int, error) {
		i, v, err := FirstOf(tk,
			func(tk *T) (int, error) { loser = tk.Sleep(time.Hour); return 1, loser },
			func(tk *T) (int, error) { return 2, tk.Sleep(5 * time.Millisecond) },
		)
		if err != nil {
			return -1, err
		}
		_ = tk.Sleep(20 * time.Millisecond)
		return i*10 + v, nil
	})
	require.NoError(t, err)
	require.Equal(t, 12, v)
	require.ErrorIs(t, loser, context.Canceled)
}

func TestLinkChain(t *testing.T) {
	requireRing(t)
	ex := newExec(t)
	path := filepath.Join(t.TempDir(), "f")
	got := make([]byte, 5)
	var res []Result
	err := runTask(t, ex, func(tk *T) error {
		fd, err := tk.Open(path, unix.O_RDWR|unix.O_CREAT, 0o600)
		if err != nil {
			return err
		}
		defer tk.Close(fd)
		res, err = tk.Link(WriteOp(fd, []byte("hello"), 0), FsyncOp(fd, 0), ReadOp(fd, got, 0))
		return err
	})
	require.NoError(t, err)
	require.Equal(t, []int32{5, 0, 5}, []int32{res[0].Res, res[1].Res, res[2].Res})
	require.Equal(t, "hello", string(got))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "hello", string(b))

	// A failing head cancels the rest of the chain.
	err = runTask(t, ex, func(tk *T) error {
		res, err = tk.Link(ReadOp(1<<30, got, 0), NopOp())
		return err
	})
	require.ErrorIs(t, err, unix.EBADF)
	require.Equal(t, -int32(unix.ECANCELED), res[1].Res)
}

// A TimeoutOp delays the ops linked after it: its -ETIME is no error and
// the write after it runs. Before 5.16 (no ETIME_SUCCESS) the kernel
// cancels what follows, as TimeoutOp says. The chain's timeout had no
// ETIME_SUCCESS, and every op after a TimeoutOp completed with -ECANCELED
// on every kernel.
func TestLinkTimeoutDelaysTheRest(t *testing.T) {
	requireRing(t)
	ex := newExec(t)
	r, w := pipe(t)
	var res []Result
	err := runTask(t, ex, func(tk *T) error {
		var err error
		res, err = tk.Link(TimeoutOp(5*time.Millisecond), WriteOp(w, []byte("late"), CurrentPos))
		return err
	})
	if capErr := uring.CheckCapability(uring.CapTimeoutETimeSuccess); capErr != nil {
		require.ErrorIs(t, err, unix.ECANCELED)
		require.Equal(t, []int32{-int32(unix.ETIME), -int32(unix.ECANCELED)}, []int32{res[0].Res, res[1].Res})
		testutil.Require(t, capErr) // fails on a kernel that should have it
	}
	require.NoError(t, err)
	require.Equal(t, []int32{-int32(unix.ETIME), 4}, []int32{res[0].Res, res[1].Res})
	buf := make([]byte, 8)
	n, err := unix.Read(r, buf)
	require.NoError(t, err)
	require.Equal(t, "late", string(buf[:n]))
}
