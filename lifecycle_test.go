//go:build linux

package uring_test

import (
	"errors"
	"fmt"
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestCallsAfterCloseReturnErrClosed(t *testing.T) {
	r, err := uring.New(4)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	_, err = r.GetSQE()
	require.ErrorIs(t, err, uring.ErrClosed)
	_, err = r.Submit()
	require.ErrorIs(t, err, uring.ErrClosed)
	_, err = r.SubmitAndWait(1)
	require.ErrorIs(t, err, uring.ErrClosed)
	_, err = r.PeekCQE()
	require.ErrorIs(t, err, uring.ErrClosed)
	_, err = r.WaitCQETimeout(time.Millisecond)
	require.ErrorIs(t, err, uring.ErrClosed)
	require.ErrorIs(t, r.Enable(), uring.ErrClosed)
	require.ErrorIs(t, r.FlushOverflow(), uring.ErrClosed)
	require.Zero(t, r.Reap(make([]sys.CQE, 4)))
	require.Zero(t, r.CQReady())
	r.Advance(1) // no-op, no crash
}

// TestCloseRacesSubmitStorm closes rings while a goroutine hammers them:
// no panic, no fault, only ErrClosed afterwards (run it under -race).
func TestCloseRacesSubmitStorm(t *testing.T) {
	for round := 0; round < 50; round++ {
		r, err := uring.New(16)
		require.NoError(t, err)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]sys.CQE, 16)
			for {
				s, err := r.GetSQE()
				if errors.Is(err, uring.ErrClosed) {
					return
				}
				if err == nil {
					s.Opcode = sys.OpNop
				}
				if _, err := r.Submit(); errors.Is(err, uring.ErrClosed) {
					return
				}
				r.Reap(buf)
			}
		}()
		time.Sleep(time.Duration(round%5) * 100 * time.Microsecond)
		require.NoError(t, r.Close())
		wg.Wait()
	}
}

func TestSQPollSubmitsWithoutEnterAndWakesAfterIdle(t *testing.T) {
	r := ringtest.New(t, 8, uring.WithSQPoll(10*time.Millisecond))
	for round := 0; round < 3; round++ {
		nop(t, r, uint64(round))
		n, err := r.Submit()
		require.NoError(t, err)
		require.Equal(t, 1, n)
		c, err := r.WaitCQETimeout(2 * time.Second)
		require.NoError(t, err, "SQPOLL thread did not pick up the SQE")
		require.Equal(t, uint64(round), c.UserData)
		r.CQESeen(c)
		// Idle for three times sq_thread_idle: the thread goes to sleep.
		deadline := time.Now().Add(2 * time.Second)
		for r.SQFlags()&sys.SQNeedWakeup == 0 {
			require.True(t, time.Now().Before(deadline), "SQPOLL thread never went idle")
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func TestSQPollWithCPUAffinity(t *testing.T) {
	r := ringtest.New(t, 4, uring.WithSQPoll(time.Millisecond), uring.WithSQPollCPU(0))
	nop(t, r, 1)
	_, err := r.Submit()
	require.NoError(t, err)
	c, err := r.WaitCQETimeout(2 * time.Second)
	require.NoError(t, err)
	require.Equal(t, uint64(1), c.UserData)
}

// TestIOPollRingCompletesNops: an IOPOLL ring takes NOPs since 5.19
// ("io_uring: allow NOP opcode in IOPOLL mode"); before, each fails with
// EINVAL, still one CQE per SQE and no hang.
func TestIOPollRingCompletesNops(t *testing.T) {
	r := ringtest.New(t, 8, uring.WithIOPoll())
	nopsOK, err := uring.KernelAtLeast("5.19")
	require.NoError(t, err)
	want := int32(0)
	if !nopsOK {
		want = -int32(unix.EINVAL)
	}
	for round := 0; round < 4; round++ {
		for i := 0; i < 8; i++ {
			nop(t, r, uint64(round*8+i))
		}
		_, err := r.SubmitAndWait(8)
		require.NoError(t, err)
		cqes := reapAll(t, r, 8)
		for i, c := range cqes {
			require.Equal(t, uint64(round*8+i), c.UserData)
			require.Equal(t, want, c.Res)
		}
	}
}

// TestIOPollODirectReadReportsEOPNOTSUPP: a polled O_DIRECT read of a
// file on a block device without poll queues fails cleanly with
// EOPNOTSUPP, not a hang; on one with poll queues it reads.
func TestIOPollODirectReadReportsEOPNOTSUPP(t *testing.T) {
	path := filepath.Join(t.TempDir(), "direct")
	require.NoError(t, os.WriteFile(path, make([]byte, 8192), 0o600))
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT, 0)
	if errors.Is(err, unix.EINVAL) {
		t.Skipf("the filesystem of %s does not support O_DIRECT", path) // not a kernel feature: tmpfs
	}
	require.NoError(t, err)
	defer unix.Close(fd)
	buf, err := sys.MmapAnon(4096, false) // page-aligned, off the Go heap
	require.NoError(t, err)
	defer sys.Munmap(buf)

	r := ringtest.New(t, 4, uring.WithIOPoll())
	s, err := r.GetSQE()
	require.NoError(t, err)
	s.Opcode, s.Fd, s.Addr, s.Len, s.UserData = sys.OpRead, int32(fd), sys.SliceAddr(buf), 4096, 1
	_, err = r.SubmitAndWaitTimeout(1, 5*time.Second)
	require.NoError(t, err)
	c, err := r.WaitCQETimeout(5 * time.Second)
	require.NoError(t, err)
	if polledFile(t, fd) {
		require.Equal(t, int32(4096), c.Res, "the file's block device has poll queues")
	} else {
		require.Equal(t, -int32(unix.EOPNOTSUPP), c.Res)
	}
}

// polledFile reports whether the block device holding fd's file completes
// polled I/O (queue/io_poll of the disk, or of the disk a partition is on).
func polledFile(t *testing.T, fd int) bool {
	t.Helper()
	var st unix.Stat_t
	require.NoError(t, unix.Fstat(fd, &st))
	dev := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	for _, q := range []string{dev + "/queue/io_poll", dev + "/../queue/io_poll"} {
		if b, err := os.ReadFile(q); err == nil {
			return strings.TrimSpace(string(b)) == "1"
		}
	}
	return false // not on a block device (overlayfs and the like): no polling
}

func TestRegisteredRingFdOnOwnerThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := ringtest.New(t, 8, uring.WithRegisteredRingFd())
	for i := 0; i < 10; i++ {
		nop(t, r, uint64(i))
		_, err := r.SubmitAndWait(1)
		require.NoError(t, err)
		require.Equal(t, uint64(i), reapAll(t, r, 1)[0].UserData)
	}
	_, err := r.WaitCQETimeout(time.Millisecond)
	require.ErrorIs(t, err, uring.ErrTimeout)
}

func TestRegisteredFdOnlyRing(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := testutil.Take()
	r, err := uring.New(8, uring.WithNoMmap(), uring.WithRegisteredFdOnly())
	testutil.Require(t, err) // NO_MMAP and REGISTERED_FD_ONLY: 6.5
	require.Equal(t, -1, r.Fd())
	fd, flag := r.RegisterTarget()
	require.GreaterOrEqual(t, fd, 0)
	require.Equal(t, sys.RegisterUseRegisteredRing, flag)
	nop(t, r, 3)
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	require.Equal(t, uint64(3), reapAll(t, r, 1)[0].UserData)
	err = r.PostWake(1)
	require.ErrorIs(t, err, uring.ErrUnsupported, "no fd: no ring-less wake")
	require.NoError(t, r.Close())
	require.Empty(t, testutil.Leaked(before))
}

func TestResizeKeepsPendingCQEs(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := ringtest.New(t, 8, uring.WithSingleIssuer(), uring.WithDeferTaskrun())
	for i := 0; i < 5; i++ {
		nop(t, r, uint64(i))
	}
	_, err := r.SubmitAndWait(5)
	require.NoError(t, err)
	err = r.Resize(64, 256)
	if errors.Is(err, uring.ErrUnsupported) {
		require.ErrorIs(t, err, syscall.EINVAL, "the kernel's answer stays visible")
	}
	testutil.Require(t, err) // RESIZE_RINGS: 6.13
	require.Equal(t, uint32(64), r.SQEntries())
	require.Equal(t, uint32(256), r.CQEntries())
	cqes := reapAll(t, r, 5)
	for i, c := range cqes {
		require.Equal(t, uint64(i), c.UserData, "CQEs pending at resize survive it")
	}
	// The resized ring works, all 64 SQEs of it.
	for i := 0; i < 64; i++ {
		nop(t, r, uint64(100+i))
	}
	_, err = r.SubmitAndWait(64)
	require.NoError(t, err)
	require.Len(t, reapAll(t, r, 64), 64)
	require.Error(t, r.Resize(0, 0))
}

func TestSubmitAndReapAllocateNothing(t *testing.T) {
	r := ringtest.New(t, 64)
	buf := make([]sys.CQE, 64)
	allocs := testing.AllocsPerRun(1000, func() {
		for i := 0; i < 8; i++ {
			s, _ := r.GetSQE()
			s.Opcode = sys.OpNop
		}
		_, _ = r.SubmitAndWait(8)
		for got := 0; got < 8; {
			got += r.Reap(buf)
		}
	})
	require.Zero(t, allocs)
	allocs = testing.AllocsPerRun(100, func() {
		_, _ = r.WaitCQETimeout(time.Microsecond)
	})
	require.Zero(t, allocs, "a wait with a timeout allocates nothing")
}

func TestWaitSQSpaceOnFullSQPollRing(t *testing.T) {
	r := ringtest.New(t, 8, uring.WithSQPoll(time.Millisecond))
	for round := 0; round < 5; round++ {
		for r.SQSpace() > 0 {
			nop(t, r, uint64(round))
		}
		_, err := r.Submit()
		require.NoError(t, err)
		require.NoError(t, r.WaitSQSpace())
		require.NotZero(t, r.SQSpace())
		reapAll(t, r, 8)
	}
	plain := ringtest.New(t, 4)
	require.NoError(t, plain.WaitSQSpace())
}

func TestForeignThreadOnSingleIssuerRingGetsTypedError(t *testing.T) {
	ready, release := make(chan *uring.Ring), make(chan struct{})
	newErr := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r, err := uring.New(4, uring.WithSingleIssuer())
		if err != nil {
			newErr <- err
			close(ready)
			return
		}
		nop(t, r, 1)
		_, _ = r.SubmitAndWait(1) // this thread becomes the submitter
		ready <- r
		<-release
		r.Close()
	}()
	r := <-ready
	if r == nil {
		testutil.Require(t, <-newErr) // SINGLE_ISSUER: 6.0
	}
	defer close(release)
	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // surely another thread
		defer runtime.UnlockOSThread()
		nop(t, r, 2)
		_, err := r.Submit()
		errc <- err
	}()
	err := <-errc
	require.ErrorIs(t, err, uring.ErrNotIssuer)
	require.ErrorIs(t, err, syscall.EEXIST)
}

func TestEventfdDisabledFlag(t *testing.T) {
	r := ringtest.New(t, 4)
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	require.NoError(t, err)
	defer unix.Close(efd)
	_, err = sys.Register(r.Fd(), sys.RegisterEventfd, &[]int32{int32(efd)}[0], 1)
	require.NoError(t, err)
	var b [8]byte

	r.SetEventfdEnabled(false)
	require.Equal(t, sys.CQEventfdDisabled, r.CQFlags())
	nop(t, r, 1)
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	reapAll(t, r, 1)
	_, err = unix.Read(efd, b[:])
	require.ErrorIs(t, err, unix.EAGAIN, "no signal while disabled")

	r.SetEventfdEnabled(true)
	require.Zero(t, r.CQFlags())
	nop(t, r, 2)
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	reapAll(t, r, 1)
	n, err := unix.Read(efd, b[:])
	require.NoError(t, err)
	require.Equal(t, 8, n)
}
