//go:build linux

package task

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/internal/testutil"
)

// An executor gives its thread back to Go when it closes instead of ending
// it: the kernel cancels the pending requests of a thread that exits, and
// other goroutines may have submitted to their own rings from that thread
// before the executor locked it.
func TestExecutorCloseKeepsItsThread(t *testing.T) {
	ex, err := NewExecutor(backendOpts()...)
	require.NoError(t, err)
	tid := ex.tid
	require.NoError(t, ex.Close())
	require.True(t, testutil.ThreadAlive(tid), "thread %d of the closed executor", tid)
}

// Under a storm of signals at the executor's thread (SIGURG, Go's own
// preemption signal), a write then a read of a pipe complete: the
// executor's io-wq workers were started before its first request
// (reg.StartIOWorkers through poll.Core), so no request of its waits for a
// worker whose start a signal can spoil. On 5.10 and 6.1, where pipe I/O
// always goes to io-wq, an executor on a new thread without them loses the
// write to -ECANCELED in most rounds (and the read then waits for ever).
func TestPipeIOUnderSignals(t *testing.T) {
	const rounds = 48
	var failed []string
	for round := 0; round < rounds; round++ {
		ex, err := NewExecutor(backendOpts()...)
		require.NoError(t, err)
		r, w := pipe(t)
		stop := testutil.SignalStorm(ex.tid)
		err = runTask(t, ex, func(tk *T) error {
			if n, err := tk.Write(w, []byte("x"), CurrentPos); n != 1 || err != nil {
				return errf("write: %d %v", n, err) // the read would wait for ever
			}
			buf := make([]byte, 4)
			if n, err := tk.Read(r, buf, CurrentPos); n != 1 || err != nil || buf[0] != 'x' {
				return errf("read: %d %v %q", n, err, buf[:max(n, 0)])
			}
			return nil
		})
		stop()
		if err != nil {
			failed = append(failed, sprintf("round %d: %v", round, err))
		}
		require.NoError(t, ex.Close())
	}
	require.Empty(t, failed, "%d of %d rounds failed", len(failed), rounds)
}
