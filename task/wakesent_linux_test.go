//go:build linux

package task

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/poll"
)

// A wake sent while the executor was awake (it is used up: a spare
// eventfd count or wake CQE) must not silence the next sleep: the next
// post wakes it, parked in the netpoller or waiting in the kernel. (An
// earlier design kept a separate "wake sent" claim that outlived the
// sleep it was meant for, and an executor slept forever; the Core's sleep
// state is its own claim.)
func TestSpareWakeDoesNotSilenceNextSleep(t *testing.T) {
	requireRing(t) // the completion core\'s counters and states
	for _, kernel := range []bool{false, true} {
		var opts []Option
		want := poll.SleepIdle
		if kernel {
			opts = append(opts, WithKernelWait())
			want = poll.SleepKernel
		}
		ex := newExec(t, opts...)
		pr, pw := pipe(t)
		var reader *Handle[int]
		if kernel {
			// A kernel wait needs an operation in flight: a read of a pipe
			// nobody writes to until the end.
			reader = SpawnOn(context.Background(), ex, func(tk *T) (int, error) {
				return tk.Read(pr, make([]byte, 1), CurrentPos)
			})
		} else {
			want = poll.SleepNetpoll
			if !coreOf(ex).NetPark() {
				want = poll.SleepKernel
			}
		}
		require.NoError(t, ex.Do(func() { coreOf(ex).Wake() })) // a wake while awake
		deadline := time.Now().Add(5 * time.Second)
		for coreOf(ex).SleepState() != want {
			require.True(t, time.Now().Before(deadline), "the executor never slept (%v)", coreOf(ex).SleepState())
			time.Sleep(time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := Run(ctx, ex, func(tk *T) (int, error) { return 1, nil })
		cancel()
		require.NoError(t, err, "kernel wait %v: the post did not wake the sleeping executor", kernel)
		if reader != nil {
			_, err = unix.Write(pw, []byte{1})
			require.NoError(t, err)
			n, err := reader.Wait(context.Background())
			require.NoError(t, err)
			require.Equal(t, 1, n)
		}
	}
}
