//go:build linux

package uring_test

import (
	"errors"
	"fmt"
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// hangGuard bounds a wait that only a bug makes long; it is never what a
// test asserts.
const hangGuard = 60 * time.Second

// sleepingInEnter waits until a thread of the process sleeps in
// io_uring_enter(2) on r (its /proc/self/task/TID/syscall names the call
// and r's fd or registered index) and returns it. Waits record no thread
// where Close ends them with CQEs, so every thread is looked at.
func sleepingInEnter(t *testing.T, r *uring.Ring) int32 {
	t.Helper()
	want := fmt.Sprintf("%d %#x ", unix.SYS_IO_URING_ENTER, uring.EnterFd(r))
	deadline := time.Now().Add(hangGuard)
	for {
		tasks, err := os.ReadDir("/proc/self/task")
		require.NoError(t, err)
		for _, e := range tasks {
			// io_uring's own threads (io-wq workers, iou-wrk-*) show the
			// io_uring_enter they were started from for ever: not waiters.
			if comm, _ := os.ReadFile("/proc/self/task/" + e.Name() + "/comm"); strings.HasPrefix(string(comm), "iou-") {
				continue
			}
			b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/syscall")
			if err == nil && strings.HasPrefix(string(b), want) {
				tid, err := strconv.Atoi(e.Name())
				require.NoError(t, err)
				return int32(tid)
			}
		}
		require.True(t, time.Now().Before(deadline), "no waiter ever slept in io_uring_enter")
		time.Sleep(time.Millisecond)
	}
}

// requireWaiterClosed fails unless the wait that reports on errc returned
// ErrClosed (after Close returned; hangGuard only catches a waiter left
// blocked).
func requireWaiterClosed(t *testing.T, errc <-chan error) {
	t.Helper()
	select {
	case err := <-errc:
		require.ErrorIs(t, err, uring.ErrClosed)
	case <-time.After(hangGuard):
		t.Fatal("Close returned but the waiter is still blocked")
	}
}

// requireNoRingFd fails when fd is still an io_uring fd of this process.
func requireNoRingFd(t *testing.T, fd int) {
	t.Helper()
	link, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err == nil {
		require.NotEqual(t, "anon_inode:[io_uring]", link, "fd %d still open after Close", fd)
	}
}

// cqeWakeExists reports whether this kernel can post a CQE into a ring
// from outside it: ring-less SEND_MSG_RING (6.13) or MSG_RING (5.18).
func cqeWakeExists() bool {
	return uring.CheckRegisterOp(sys.RegisterSendMsgRing) == nil || uring.CheckOp(sys.OpMsgRing) == nil
}

// waitKinds are the calls that sleep in io_uring_enter; each gets r (with
// two CQEs ready already) and returns what the call returned.
var waitKinds = []struct {
	name string
	wait func(r *uring.Ring) error
}{
	{"WaitCQE", func(r *uring.Ring) error {
		r.Advance(2) // consume the two ready CQEs: the wait sleeps
		_, err := r.WaitCQE()
		return err
	}},
	{"WaitCQEs(6)", func(r *uring.Ring) error {
		_, err := r.WaitCQEs(6) // two ready, four more needed
		return err
	}},
	{"SubmitAndWait(3)", func(r *uring.Ring) error {
		_, err := r.SubmitAndWait(3)
		return err
	}},
	{"WaitCQETimeout(1h)", func(r *uring.Ring) error {
		r.Advance(2)
		_, err := r.WaitCQETimeout(time.Hour)
		return err
	}},
}

// closeWakes runs wait on a new ring until it sleeps in the kernel, closes
// the ring from this goroutine and checks that the wait returned ErrClosed
// and that nothing of the ring is left. It returns Close's stats.
func closeWakes(t *testing.T, wait func(r *uring.Ring) error, signalOnly bool) (cqeWakes, signals, rechecks uint32) {
	t.Helper()
	r, err := uring.New(8)
	require.NoError(t, err)
	if signalOnly {
		uring.WakeBySignalOnly(r)
	}
	nop(t, r, 1)
	nop(t, r, 2)
	_, err = r.SubmitAndWait(2)
	require.NoError(t, err)
	fd := r.Fd()
	errc := make(chan error, 1)
	go func() { errc <- wait(r) }()
	sleepingInEnter(t, r)
	require.NoError(t, r.Close())
	requireWaiterClosed(t, errc)
	requireNoRingFd(t, fd)
	require.Empty(t, uring.Waiters(r))
	require.ErrorIs(t, r.Close(), uring.ErrClosed)
	return uring.CloseStats(r)
}

// TestCloseWakesBlockedWaiter: Close wakes a call sleeping in
// io_uring_enter on another goroutine, on every kernel: with a CQE posted
// from outside the ring where the kernel can (5.18), else by interrupting
// the thread. Close returns only after the waiter left and the fd is
// closed, and it does not poll: a handful of rechecks at growing intervals
// at most.
func TestCloseWakesBlockedWaiter(t *testing.T) {
	for _, k := range waitKinds {
		t.Run(k.name, func(t *testing.T) {
			cqeWakes, signals, rechecks := closeWakes(t, k.wait, false)
			if cqeWakeExists() {
				require.Equal(t, uint32(1), cqeWakes, "one round of wake CQEs")
			} else {
				require.Zero(t, cqeWakes)
				require.NotZero(t, signals, "before MSG_RING (5.18) the waiter's thread is interrupted")
			}
			require.LessOrEqual(t, rechecks, uint32(12), "Close polled")
		})
	}
}

// TestCloseWakesWaiterBySignal forces the wake that kernels before 5.18
// use (and that a WithRegisteredFdOnly ring, which no CQE can be sent to,
// always uses): SIGURG to the waiting thread, EINTR, ErrClosed.
func TestCloseWakesWaiterBySignal(t *testing.T) {
	for _, k := range waitKinds {
		t.Run(k.name, func(t *testing.T) {
			cqeWakes, signals, rechecks := closeWakes(t, k.wait, true)
			require.Zero(t, cqeWakes)
			require.NotZero(t, signals)
			require.LessOrEqual(t, rechecks, uint32(12), "Close polled")
		})
	}
}

// TestCloseWakesWaiterForManyCQEs: a wait for six CQEs with two ready is
// woken too (Close posts as many CQEs as the wait asked for, or signals).
func TestCloseWakesWaiterForManyCQEs(t *testing.T) {
	_, _, rechecks := closeWakes(t, waitKinds[1].wait, false)
	require.LessOrEqual(t, rechecks, uint32(12), "Close polled")
}

// TestCloseOfIdleRingWakesNothing: with no call in flight Close releases
// the ring at once: no wake, no signal, no recheck.
func TestCloseOfIdleRingWakesNothing(t *testing.T) {
	r, err := uring.New(4)
	require.NoError(t, err)
	nop(t, r, 1)
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	fd := r.Fd()
	require.NoError(t, r.Close())
	requireNoRingFd(t, fd)
	cqeWakes, signals, rechecks := uring.CloseStats(r)
	require.Zero(t, cqeWakes+signals+rechecks)
}

// TestCloseRacesWaitersAndCloses: a goroutine submitting and waiting in a
// loop, and two Closes at once: exactly one Close succeeds, the loop ends
// with ErrClosed, nothing panics or faults, and no fd or mapping is left.
func TestCloseRacesWaitersAndCloses(t *testing.T) {
	before := testutil.Take()
	for round := 0; round < 50; round++ {
		r, err := uring.New(8)
		require.NoError(t, err)
		if round%2 == 1 {
			uring.WakeBySignalOnly(r)
		}
		loopErr := make(chan error, 1)
		go func() {
			buf := make([]sys.CQE, 8)
			for {
				s, err := r.GetSQE()
				if err == nil {
					s.Opcode = sys.OpNop
				}
				if _, err := r.SubmitAndWait(1); err != nil {
					loopErr <- err
					return
				}
				r.Reap(buf)
				if _, err := r.WaitCQETimeout(time.Duration(round%3) * time.Millisecond); err != nil && !errors.Is(err, uring.ErrTimeout) {
					loopErr <- err
					return
				}
			}
		}()
		runtime.Gosched()
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = r.Close() }()
		}
		wg.Wait()
		require.ErrorIs(t, <-loopErr, uring.ErrClosed)
		nils := 0
		for _, err := range errs {
			if err == nil {
				nils++
			} else {
				require.ErrorIs(t, err, uring.ErrClosed)
			}
		}
		require.Equal(t, 1, nils, "exactly one Close closes")
	}
	require.Empty(t, testutil.Leaked(before))
}

// TestPostWake posts a CQE into a ring from another goroutine, waking a
// wait there (IORING_REGISTER_SEND_MSG_RING without a source ring, 6.13).
// Before 6.13 the answer is an UnsupportedError naming 6.13.
func TestPostWake(t *testing.T) {
	r := ringtest.New(t, 4)
	err := r.PostWake(1)
	if err != nil {
		var ue *uring.UnsupportedError
		require.ErrorAs(t, err, &ue)
		require.Equal(t, "6.13", ue.MinimumVersion)
	}
	testutil.FailIfKernelHas(t, "6.13", err)
	c, err := r.WaitCQE()
	require.NoError(t, err)
	require.Equal(t, uint64(1), c.UserData)
	require.Equal(t, int32(0), c.Res)
	r.CQESeen(c)

	errc := make(chan error, 1)
	go func() {
		c, err := r.WaitCQE()
		if err == nil && c.UserData != 7 {
			err = fmt.Errorf("woken by user_data %d, want 7", c.UserData)
		}
		errc <- err
	}()
	sleepingInEnter(t, r)
	require.NoError(t, r.PostWake(7))
	require.NoError(t, <-errc)
	require.NoError(t, r.Close())
	require.ErrorIs(t, r.PostWake(8), uring.ErrClosed)
}

// TestUseTargetRetriesEINTR: a register call interrupted by a signal
// changed nothing and runs again; once the ring is closed it stops with
// ErrClosed.
func TestUseTargetRetriesEINTR(t *testing.T) {
	r := ringtest.New(t, 4)
	calls := 0
	err := r.UseTarget(func(fd int, flag sys.RegisterOp) error {
		calls++
		if calls < 3 {
			return &os.SyscallError{Syscall: "io_uring_register", Err: unix.EINTR}
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 3, calls)

	calls = 0
	err = r.UseTarget(func(fd int, flag sys.RegisterOp) error {
		calls++
		go r.Close() // waits for this call to leave
		for !uring.IsClosing(r) {
			runtime.Gosched()
		}
		return &os.SyscallError{Syscall: "io_uring_register", Err: unix.EINTR}
	})
	require.ErrorIs(t, err, uring.ErrClosed)
	require.Equal(t, 1, calls)
}
