//go:build linux

package task

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/pure-uring/uring/poll"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// kernelWaiting puts ex into a kernel wait: a short average wait and a
// read in flight that only data ends. It returns the pipe's write end.
func kernelWaiting(t *testing.T, ex *Executor) (pw int, reader *Handle[int]) {
	t.Helper()
	pr, pw := pipe(t)
	reader = SpawnOn(context.Background(), ex, func(tk *T) (int, error) {
		for tk.ex.signalledForTest() {
			if err := tk.Sleep(time.Millisecond); err != nil {
				return 0, err
			}
		}
		coreOf(tk.ex).SetWaitHint(10 * time.Microsecond)
		return tk.Read(pr, make([]byte, 8), CurrentPos)
	})
	deadline := time.Now().Add(5 * time.Second)
	for coreOf(ex).SleepState() != poll.SleepKernel {
		require.True(t, time.Now().Before(deadline), "the executor never waited in the kernel")
		time.Sleep(time.Millisecond)
	}
	return pw, reader
}

// An executor waiting in io_uring_enter is woken by work from another
// goroutine (a posted CQE, not the eventfd) and from another executor.
func TestKernelWaitWokenByPosts(t *testing.T) {
	requireRing(t)                                                           // the completion core\'s counters and states
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 16)) // spare Ps
	rt := newRuntime(t, 2)
	a, b := rt.Executors()[0], rt.Executors()[1]

	pw, reader := kernelWaiting(t, a)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := Run(ctx, a, func(tk *T) (int, error) { return 0, tk.Nop() })
	require.NoError(t, err, "a goroutine's post woke the kernel wait")

	pw2, reader2 := kernelWaiting(t, a) // the Run's result woke a goroutine: a parked, then came back
	n, err := Run(ctx, b, func(tk *T) (int, error) {
		return SpawnAt(tk, a, func(tk *T) (int, error) { return 7, tk.Nop() }).Join(tk)
	})
	require.NoError(t, err, "another executor's post woke the kernel wait")
	require.Equal(t, 7, n)

	for i, w := range []int{pw, pw2} {
		_, err = unix.Write(w, []byte("data"))
		require.NoError(t, err)
		got, err := []*Handle[int]{reader, reader2}[i].Wait(ctx)
		require.NoError(t, err)
		require.Equal(t, 4, got)
	}
}
