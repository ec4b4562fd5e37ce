//go:build linux

package task

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// TestIOPollExecutorTrimsIdle: an executor on an IOPOLL ring (which
// sleeps in ParkIdle, not in the netpoller or the kernel) stops the worker
// coroutines a burst of parked tasks left idle, as the other executors
// do. The tasks park on a task channel, so no request reaches the ring
// (this machine's disk refuses polled reads).
func TestIOPollExecutorTrimsIdle(t *testing.T) {
	requireRing(t)
	ex := newExec(t, WithRingOptions(uring.WithIOPoll()), WithEntries(64))
	require.NotZero(t, ex.Ring().SetupFlags()&sys.SetupIOPoll)
	// The executor's idle sleeps: a task that returns at once (an IOPOLL
	// executor never sleeps in the netpoller or the kernel).
	requireBurstTrimmed(t, ex, 1000, func(*T) error { return nil })
	require.True(t, onExec(t, ex, coreOf(ex).IOPoll), "the executor polls an IOPOLL ring")
}
