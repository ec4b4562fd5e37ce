//go:build linux

package task

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A waker that claimed a wake (wakeSent) just after a sleep ended sends
// it into the awake executor, where it is used up (a MSG_RING CQE reaped
// in passing). The claim must not outlive that: the next sleep is woken by
// the next post. Here the stale claim is set directly, then the executor
// sleeps with nothing in flight and a goroutine posts; before the fix it
// slept on (Close hung in TestCancelRacingMultishotBuffers, once in ~25
// runs under -race).
func TestStaleWakeClaimDoesNotSilenceNextSleep(t *testing.T) {
	for _, kernel := range []bool{false, true} {
		var opts []Option
		if kernel {
			opts = append(opts, WithKernelWait())
		}
		ex := newExec(t, opts...)
		pr, pw := pipe(t)
		var reader *Handle[int]
		if kernel {
			// A kernel wait needs an operation in flight: a read of a pipe
			// nobody writes to until the end.
			reader = SpawnOn(ex, context.Background(), func(tk *T) (int, error) {
				return tk.Read(pr, make([]byte, 1), CurrentPos)
			})
		}
		require.NoError(t, ex.Do(func() { ex.wakeSent.Store(true) })) // claimed while awake
		deadline := time.Now().Add(5 * time.Second)
		for !ex.sleeping.Load() {
			require.True(t, time.Now().Before(deadline), "the executor never slept")
			time.Sleep(time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := Run(ex, ctx, func(tk *T) (int, error) { return 1, nil })
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
