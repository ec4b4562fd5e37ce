//go:build linux

package task

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/task/internal/fallback"
	"github.com/pure-uring/uring/task/internal/ring"
)

// Test seams: the tests set and read the executor's internals through
// these rather than through its fields.

// setTrimEveryForTest sets how often the executor may trim its idle
// workers (0: before every sleep; the default is trimEvery), on its
// thread.
func (ex *Executor) setTrimEveryForTest(d time.Duration) error {
	return ex.Do(func() { ex.trimEvery = d })
}

// idleWorkersForTest is the number of idle worker coroutines (executor
// thread: call it through onExec).
func (ex *Executor) idleWorkersForTest() int { return len(ex.idle) }

// trimmedForTest is the number of idle workers trimmed so far (executor
// thread: call it through onExec).
func (ex *Executor) trimmedForTest() int { return ex.stats.trimmed }

// pokesForTest is the number of tasks context cancellations looked at so
// far (executor thread: from a task or through onExec).
func (ex *Executor) pokesForTest() int { return ex.stats.pokes }

// signalledForTest reports whether a goroutine was made runnable since
// the executor's last wait, which makes its next wait park at once
// instead of spinning or waiting in the kernel (executor thread: from a
// task).
func (ex *Executor) signalledForTest() bool { return ex.signalled }

// requireAsleep waits until ex sleeps (nothing to run: its backend's sleep
// state is set), failing the test if that never happens (a minute: a hang
// guard, not a timing).
func requireAsleep(t *testing.T, ex *Executor) {
	t.Helper()
	state := func() uint32 {
		if f := fbOf(ex); f != nil {
			return f.SleepState()
		}
		return uint32(coreOf(ex).SleepState())
	}
	for deadline := time.Now().Add(time.Minute); state() == 0; runtime.Gosched() {
		require.True(t, time.Now().Before(deadline), "the executor never went to sleep")
	}
}

// ringOf is ex's io_uring backend; nil on the fallback.
func ringOf(ex *Executor) *ring.Backend {
	r, _ := ex.be.(*ring.Backend)
	return r
}

// fbOf is ex's fallback backend; nil on io_uring.
func fbOf(ex *Executor) *fallback.Backend {
	f, _ := ex.be.(*fallback.Backend)
	return f
}

// coreOf is the Core of ex's ring; nil on the fallback.
func coreOf(ex *Executor) *poll.Core {
	if r := ringOf(ex); r != nil {
		return r.Core()
	}
	return nil
}
