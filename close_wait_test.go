//go:build linux

package uring_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
)

// TestWaitRecordsNoThreadWhereCQEsWake: where Close can post CQEs a wait
// records no thread (no gettid(2) per wait); forced to signals, it does.
func TestWaitRecordsNoThreadWhereCQEsWake(t *testing.T) {
	for _, signalOnly := range []bool{false, true} {
		r, err := uring.New(4)
		require.NoError(t, err)
		if signalOnly {
			uring.WakeBySignalOnly(r)
		}
		errc := make(chan error, 1)
		go func() { _, err := r.WaitCQE(); errc <- err }()
		tid := sleepingInEnter(t, r)
		if cqeWakeExists() && !signalOnly {
			require.Empty(t, uring.Waiters(r), "a wait Close ends with CQEs recorded its thread")
		} else {
			require.Equal(t, []int32{tid}, uring.Waiters(r))
		}
		require.NoError(t, r.Close())
		require.ErrorIs(t, <-errc, uring.ErrClosed)
	}
}

// TestCloseWakesWaiterOnRegisteredRing: a wait through a registered ring
// index runs on the registering thread, which Close knows without the
// waiter recording it: woken with CQEs where the kernel can post them, by
// a signal to that thread otherwise (forced here).
func TestCloseWakesWaiterOnRegisteredRing(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterRingFds))
	for _, signalOnly := range []bool{false, true} {
		rings := make(chan *uring.Ring, 1)
		errc := make(chan error, 1)
		go func() {
			runtime.LockOSThread() // the index belongs to this thread
			defer runtime.UnlockOSThread()
			r, err := uring.New(4, uring.WithRegisteredRingFd())
			if err != nil {
				errc <- err
				rings <- nil
				return
			}
			if signalOnly {
				uring.WakeBySignalOnly(r)
			}
			rings <- r
			_, err = r.WaitCQE()
			errc <- err
		}()
		r := <-rings
		if r == nil {
			require.NoError(t, <-errc)
		}
		sleepingInEnter(t, r)
		require.Empty(t, uring.Waiters(r), "the registering thread is known since New")
		require.NoError(t, r.Close())
		requireWaiterClosed(t, errc)
		cqeWakes, signals, _ := uring.CloseStats(r)
		if signalOnly || !cqeWakeExists() {
			require.Zero(t, cqeWakes)
			require.NotZero(t, signals, "the registering thread was not interrupted")
		} else {
			require.Equal(t, uint32(1), cqeWakes)
		}
	}
}
