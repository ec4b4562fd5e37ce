//go:build linux

package poll

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// TestEventfdDeferTaskrunProbe: a Core parked in the netpoller on the
// eventfd of a DEFER_TASKRUN ring (forced, whatever the probe says) is
// woken by each completion of a pipe read that a write makes ready — or,
// on a kernel whose eventfd drops those signals after the first (Debian's
// 6.12), sleeps through it until its timeout. The probe must say which
// kind of kernel this is; the Core then leaves DEFER_TASKRUN out there,
// which TestParkWake and task's GOMAXPROCS=1 ping-pong (a hang on 6.12
// before) check end to end.
func TestEventfdDeferTaskrunProbe(t *testing.T) {
	testutil.Require(t, uring.CheckSetupFlag(sys.SetupDeferTaskrun))
	probe := eventfdSignalsDeferredWork()
	require.True(t, probe == nil || probe == ErrEventfdDeferTaskrun || probe == ErrEventfdDeferTaskrunLate,
		"the probe failed: %v", probe)

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c, err := NewCore(WithEntries(8), WithNetPark(), withForceDefer())
	require.NoError(t, err)
	defer func() {
		require.True(t, c.CancelAll())
		for !c.Quiet() {
			_, _ = c.Ring().SubmitAndWaitTimeout(1, 10*time.Millisecond)
			c.Reap()
		}
		require.NoError(t, c.Close())
	}()
	require.NotZero(t, c.Ring().SetupFlags()&sys.SetupDeferTaskrun)
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	defer pw.Close()
	rfd := rawFd(t, pr)
	buf := make([]byte, 1)
	got := 0
	h := HandlerFunc(func(cq *sys.CQE) {
		if cq.Res == 1 {
			got++
		}
	})
	lost := 0
	for round := 0; round < 3; round++ {
		s, err := c.Ring().GetSQE()
		require.NoError(t, err)
		require.NoError(t, sqe.Read(s, rfd, buf, -1))
		s.UserData = uint64(c.Acquire(h))
		_, err = c.Ring().Submit()
		require.NoError(t, err)
		go func() {
			for c.SleepState() != SleepNetpoll {
				time.Sleep(100 * time.Microsecond)
			}
			_, _ = pw.Write([]byte{1})
		}()
		before := c.Stats().ParkTimeouts
		for c.InFlight() > 0 {
			require.NoError(t, c.ParkNetpoll(2*time.Second))
			c.Reap()
		}
		if c.Stats().ParkTimeouts > before {
			lost++
		}
	}
	runtime.KeepAlive(buf)
	require.Equal(t, 3, got, "every read completed")
	if probe != ErrEventfdDeferTaskrun {
		require.Zero(t, lost, "the probe says the eventfd signals (%v), yet %d completions were slept through", probe, lost)
	} else {
		require.NotZero(t, lost, "the probe says the eventfd loses wakeups, yet none was lost")
	}
	t.Logf("kernel %s: eventfd probe %v; wakeups lost %d of 3", uring.KernelRelease(), probe, lost)
}

// TestParkNetpollWithLateEventfd: where the eventfd signals deferred work
// late (the probe's ErrEventfdDeferTaskrunLate: 6.18), a NetPark Core with
// the wake eventfd keeps DEFER_TASKRUN and its ParkNetpoll, with a read in
// flight and a P to spare, sleeps in io_uring_enter (one kernel wait, no
// netpoll park) and ends with the read's CQE; elsewhere, and at
// GOMAXPROCS=1, it parks in the netpoller (late there). With
// nothing in flight it parks in the netpoller everywhere, and a Wake ends
// that park.
func TestParkNetpollWithLateEventfd(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	probe := eventfdSignalsDeferredWork()
	late := probe == ErrEventfdDeferTaskrunLate
	c, err := NewCore(WithEntries(8), WithNetPark(), WithKernelWake())
	require.NoError(t, err)
	defer func() { require.NoError(t, c.Close()) }() // nothing in flight by then but the wake poll
	if late {
		require.NotZero(t, c.Ring().SetupFlags()&sys.SetupDeferTaskrun, "a late eventfd keeps DEFER_TASKRUN with the wake eventfd")
	}
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	defer pw.Close()
	buf := make([]byte, 1)
	got := 0
	h := HandlerFunc(func(cq *sys.CQE) {
		if cq.Res == 1 {
			got++
		}
	})
	s, err := c.Ring().GetSQE()
	require.NoError(t, err)
	require.NoError(t, sqe.Read(s, rawFd(t, pr), buf, -1))
	s.UserData = uint64(c.Acquire(h))
	_, err = c.Ring().Submit()
	require.NoError(t, err)
	go func() {
		for c.SleepState() == Awake {
			time.Sleep(100 * time.Microsecond)
		}
		_, _ = pw.Write([]byte{7})
	}()
	before := c.Stats()
	for c.InFlight() > 0 {
		require.NoError(t, c.ParkNetpoll(0))
		c.Reap()
	}
	after := c.Stats()
	require.Equal(t, 1, got)
	require.Equal(t, byte(7), buf[0])
	if late && spareP() { // without a spare P (GOMAXPROCS=1) it parks, late, as elsewhere
		require.Equal(t, before.NetParks, after.NetParks, "no netpoll park with a read in flight")
		require.Greater(t, after.KernelWaits, before.KernelWaits)
	} else {
		require.Greater(t, after.NetParks, before.NetParks)
	}

	// Nothing in flight: the netpoller, ended by a Wake.
	go func() {
		for c.SleepState() != SleepNetpoll {
			time.Sleep(100 * time.Microsecond)
		}
		c.Wake()
	}()
	before = c.Stats()
	require.NoError(t, c.ParkNetpoll(0))
	require.Equal(t, before.NetParks+1, c.Stats().NetParks)
	runtime.KeepAlive(buf)
	t.Logf("kernel %s: eventfd probe %v; spare P %v", uring.KernelRelease(), probe, spareP())
}
