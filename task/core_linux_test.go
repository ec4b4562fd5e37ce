//go:build linux

package task

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

func TestNopAndSpawnJoin(t *testing.T) {
	ex := newExec(t)
	var sum int
	err := runTask(t, ex, func(tk *T) error {
		if err := tk.Nop(); err != nil {
			return err
		}
		hs := make([]*Handle[int], 100)
		for i := range hs {
			hs[i] = Spawn(tk, func(tk *T) (int, error) {
				if err := tk.Nop(); err != nil {
					return 0, err
				}
				return i, nil
			})
		}
		for _, h := range hs {
			v, err := h.Join(tk)
			if err != nil {
				return err
			}
			sum += v
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 4950, sum)
}

func TestPanicReportedToJoiner(t *testing.T) {
	ex := newExec(t)
	var perr *PanicError
	err := runTask(t, ex, func(tk *T) error {
		h := Spawn(tk, func(tk *T) (int, error) {
			_ = tk.Nop()
			panic("boom")
		})
		_, err := h.Join(tk)
		return err
	})
	require.True(t, errors.As(err, &perr), "err = %v", err)
	require.Equal(t, "boom", perr.Value)
	// The executor keeps running.
	require.NoError(t, runTask(t, ex, func(tk *T) error { return tk.Nop() }))
}

func TestPipeReadWrite(t *testing.T) {
	ex := newExec(t)
	var p [2]int
	p[0], p[1] = pipe(t)
	got := make([]byte, 5)
	var n int
	err := runTask(t, ex, func(tk *T) error {
		r := Spawn(tk, func(tk *T) (int, error) { return tk.Read(p[0], got, CurrentPos) })
		if _, err := tk.Write(p[1], []byte("hello"), CurrentPos); err != nil {
			return err
		}
		var err error
		n, err = r.Join(tk)
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 5, n)
	require.Equal(t, "hello", string(got))
}

// Handle.Done is safe from an ordinary goroutine on a SpawnOn handle (run
// with -race).
func TestHandleDoneFromGoroutine(t *testing.T) {
	ex := newExec(t)
	for i := 0; i < 20; i++ {
		h := SpawnOn(context.Background(), ex, func(tk *T) (int, error) {
			if err := tk.Nop(); err != nil {
				return 0, err
			}
			return i, nil
		})
		for !h.Done() {
			runtime.Gosched()
		}
		v, err := h.Wait(context.Background())
		require.NoError(t, err)
		require.Equal(t, i, v)
	}
}

// The kernel-internal restart errnos (512..516) an interrupted io-wq
// request leaks become EINTR, or the context's error when the op was
// cancelled.
func TestRestartErrnoMapping(t *testing.T) {
	requireRing(t)
	testutil.Require(t, uring.CheckCapability(uring.CapNopInjectResult))
	ex := newExec(t)
	inject := func(res int32) func(s *sys.SQE) {
		return func(s *sys.SQE) { sqe.NopResult(s, res) }
	}
	err := runTask(t, ex, func(tk *T) error {
		for res := int32(512); res <= 516; res++ {
			_, _, err := tk.Await(inject(-res))
			if !errors.Is(err, unix.EINTR) {
				return fmt.Errorf("res %d: got %v, want EINTR", -res, err)
			}
			// Cancelled while the op is in flight: the context's error.
			ctx, cancel := context.WithCancel(tk.Context())
			err = tk.Scope(ctx, func(tk *T) error {
				_, _, err := tk.Await(func(s *sys.SQE) { inject(-res)(s); cancel() })
				return err
			})
			cancel()
			if !errors.Is(err, context.Canceled) {
				return fmt.Errorf("res %d, cancelled: got %v, want context.Canceled", -res, err)
			}
		}
		// Other errnos pass through.
		_, _, err := tk.Await(inject(-int32(unix.EBADF)))
		if !errors.Is(err, unix.EBADF) {
			return fmt.Errorf("got %v, want EBADF", err)
		}
		return nil
	})
	require.NoError(t, err)
}
