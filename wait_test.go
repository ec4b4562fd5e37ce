//go:build linux

package uring_test

import (
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"os/signal"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

func TestWaitTimeoutOnIdleRing(t *testing.T) {
	r := ringtest.New(t, 4)
	start := time.Now()
	c, err := r.WaitCQETimeout(50 * time.Millisecond)
	el := time.Since(start)
	require.ErrorIs(t, err, uring.ErrTimeout)
	require.Nil(t, c)
	require.GreaterOrEqual(t, el, 50*time.Millisecond)
}

// returnsWithin runs wait and fails the test when it has not returned
// after hangGuard (which only a wait that never ends reaches).
func returnsWithin[R any](t *testing.T, wait func() R) R {
	t.Helper()
	done := make(chan R, 1)
	go func() { done <- wait() }()
	select {
	case v := <-done:
		return v
	case <-time.After(hangGuard):
		t.Fatal("the wait never returned")
		panic("unreachable")
	}
}

func TestZeroTimeoutDoesNotBlock(t *testing.T) {
	r := ringtest.New(t, 4)
	// Nothing will ever complete: only a zero timeout ends this wait.
	err := returnsWithin(t, func() error { _, err := r.WaitCQETimeout(0); return err })
	require.ErrorIs(t, err, uring.ErrTimeout)

	nop(t, r, 3)
	_, err = r.Submit()
	require.NoError(t, err)
	c, err := r.WaitCQETimeout(0)
	require.NoError(t, err)
	require.Equal(t, uint64(3), c.UserData)
	r.CQESeen(c)
	_, err = r.WaitCQETimeout(-time.Second)
	require.Error(t, err, "a negative timeout is a bad argument")
}

func TestWaitReturnsWhenCompletionArrives(t *testing.T) {
	r := ringtest.New(t, 4)
	// A 20 ms kernel TIMEOUT completes the wait; its own limit (an hour)
	// cannot.
	ts := sys.Timespec{Nsec: int64(20 * time.Millisecond)}
	s, err := r.GetSQE()
	require.NoError(t, err)
	s.Opcode, s.Addr, s.Len, s.UserData = sys.OpTimeout, sys.PtrAddr(&ts), 1, 77
	err = returnsWithin(t, func() error { _, err := r.SubmitAndWaitTimeout(1, time.Hour); return err })
	require.NoError(t, err)
	runtime.KeepAlive(&ts)
	c := reapAll(t, r, 1)[0]
	require.Equal(t, uint64(77), c.UserData)
	require.Equal(t, -int32(syscall.ETIME), c.Res)
}

func TestMinTimeoutBatchesWithoutStalling(t *testing.T) {
	testutil.Require(t, uring.CheckFeature(sys.FeatMinTimeout)) // 6.12
	r := ringtest.New(t, 8)
	// A 5 ms kernel timeout, submitted by the wait itself: a CQE that arrives
	// during the wait (min-wait counts only new ones).
	ts := sys.Timespec{Nsec: int64(5 * time.Millisecond)}
	s, err := r.GetSQE()
	require.NoError(t, err)
	s.Opcode, s.Addr, s.Len, s.UserData = sys.OpTimeout, sys.PtrAddr(&ts), 1, 1
	// Ask for 4 with an hour's limit and a 10 ms min-wait: after the
	// min-wait the one CQE that arrived is the batch (only three more
	// CQEs or the hour could end it otherwise).
	type res struct {
		c   *sys.CQE
		err error
	}
	got := returnsWithin(t, func() res {
		c, err := r.WaitCQEsTimeout(4, time.Hour, 10*time.Millisecond)
		return res{c, err}
	})
	runtime.KeepAlive(&ts)
	require.NoError(t, got.err)
	require.Equal(t, uint64(1), got.c.UserData)
}

func TestSignalStormNeverSurfacesEINTR(t *testing.T) {
	r := ringtest.New(t, 4)
	sigs := make(chan os.Signal, 1024)
	signal.Notify(sigs, syscall.SIGUSR1)
	defer signal.Stop(sigs)

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := sys.Gettid()
	var stop atomic.Bool
	var sent atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			_ = syscall.Tgkill(os.Getpid(), tid, syscall.SIGUSR1)
			sent.Add(1)
			time.Sleep(time.Millisecond)
		}
	}()
	defer func() { stop.Store(true); <-done }()

	// Wait through at least 100 signals (however slowly this machine
	// sends them): every wait ends in its timeout, none in EINTR.
	deadline := time.Now().Add(hangGuard)
	for i := 0; i < 3 || sent.Load() <= 100; i++ {
		require.True(t, time.Now().Before(deadline), "only %d signals sent", sent.Load())
		start := time.Now()
		_, err := r.WaitCQETimeout(100 * time.Millisecond)
		require.ErrorIs(t, err, uring.ErrTimeout, "EINTR must not surface")
		require.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond, "the timeout still holds")
	}
	// Completions still arrive during the storm.
	ts := sys.Timespec{Nsec: int64(30 * time.Millisecond)}
	s, err := r.GetSQE()
	require.NoError(t, err)
	s.Opcode, s.Addr, s.Len, s.UserData = sys.OpTimeout, sys.PtrAddr(&ts), 1, 5
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	runtime.KeepAlive(&ts)
	c, err := r.WaitCQE()
	require.NoError(t, err)
	require.Equal(t, uint64(5), c.UserData)
	r.CQESeen(c)
	require.Greater(t, sent.Load(), int64(100))
}

// TestSubmitAndWaitForRequestsThatDoNotCompleteInline: the inline fast
// path gives way to a blocking wait, and keeps waiting correctly after it
// stops trying.
func TestSubmitAndWaitForRequestsThatDoNotCompleteInline(t *testing.T) {
	r := ringtest.New(t, 4)
	ts := &sys.Timespec{Nsec: int64(200 * time.Microsecond)}
	for i := 0; i < 100; i++ {
		s, err := r.GetSQE()
		require.NoError(t, err)
		s.Opcode, s.Addr, s.Len, s.UserData = sys.OpTimeout, sys.PtrAddr(ts), 1, uint64(i)
		n, err := r.SubmitAndWait(1)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, uint32(1), r.CQReady(), "SubmitAndWait returned before the CQE")
		c := reapAll(t, r, 1)[0]
		require.Equal(t, uint64(i), c.UserData)
		require.Equal(t, -int32(syscall.ETIME), c.Res)
		if i%10 == 0 { // and NOPs, which do complete inline, in between
			nop(t, r, 1000)
			_, err := r.SubmitAndWait(1)
			require.NoError(t, err)
			require.Equal(t, uint64(1000), reapAll(t, r, 1)[0].UserData)
		}
	}
	runtime.KeepAlive(ts)
}
