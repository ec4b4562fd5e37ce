//go:build linux

package uring_test

import (
	"bufio"
	"errors"
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// registerPersonality is a register call that changes something the test
// can undo: IORING_REGISTER_PERSONALITY through fd/flag.
func registerPersonality(fd int, flag sys.RegisterOp) (int, error) {
	id, err := sys.Register[byte](fd, sys.RegisterPersonality|flag, nil, 0)
	if err == nil {
		_, err = sys.Register[byte](fd, sys.UnregisterPersonality|flag, nil, uint32(id))
	}
	return id, err
}

func TestCloseRingFd(t *testing.T) {
	testutil.Require(t, uring.CheckFeature(sys.FeatRegRegRing))
	// The registered index belongs to this thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	plain := ringtest.New(t, 4)
	require.ErrorContains(t, plain.CloseRingFd(), "WithRegisteredRingFd")

	r, err := uring.New(8, uring.WithRegisteredRingFd())
	require.NoError(t, err)
	fd := r.Fd()
	require.GreaterOrEqual(t, fd, 0)
	require.NoError(t, r.CloseRingFd())
	_, err = unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	require.ErrorIs(t, err, unix.EBADF, "the ring fd is still open")
	require.Equal(t, -1, r.Fd())
	idx, flag := r.RegisterTarget()
	require.Equal(t, sys.RegisterUseRegisteredRing, flag)
	require.GreaterOrEqual(t, idx, 0)

	// The ring goes on through its index: a NOP round trip, a register call.
	for i := uint64(0); i < 3; i++ {
		nop(t, r, 10+i)
	}
	n, err := r.SubmitAndWait(3)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	require.Len(t, reapAll(t, r, 3), 3)
	require.NoError(t, r.UseTarget(func(fd int, flag sys.RegisterOp) error {
		require.Equal(t, sys.RegisterUseRegisteredRing, flag)
		id, err := registerPersonality(fd, flag)
		require.Positive(t, id)
		return err
	}))

	// What needs the fd says so.
	require.ErrorContains(t, r.CloseRingFd(), "already closed")
	require.ErrorIs(t, r.Resize(16, 0), syscall.EINVAL)
	require.ErrorContains(t, r.Resize(16, 0), "CloseRingFd")
	require.ErrorIs(t, r.PostWake(1), uring.ErrUnsupported)
	_, err = uring.New(4, uring.WithAttachWQ(r))
	require.ErrorContains(t, err, "no fd")

	require.NoError(t, r.Close())
	require.ErrorIs(t, r.CloseRingFd(), uring.ErrClosed)
	require.ErrorIs(t, r.Close(), uring.ErrClosed)
}

// TestCloseRingFdRacingRegisterCalls closes the fd while other goroutines
// make register calls: each call either used the fd, which must still have
// been the ring's (success), or was refused with ErrNotIssuer once only
// the index was left (it names the ring on the registering thread only,
// which this goroutine holds: there it would name another ring, or none).
// A call on a closed or reused fd number would fail with EBADF or
// EOPNOTSUPP while holding the fd.
func TestCloseRingFdRacingRegisterCalls(t *testing.T) {
	testutil.Require(t, uring.CheckFeature(sys.FeatRegRegRing))
	for round := 0; round < 20; round++ {
		func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			r, err := uring.New(4, uring.WithRegisteredRingFd())
			require.NoError(t, err)
			defer r.Close()
			var wg sync.WaitGroup
			var mu sync.Mutex
			viaFd, refused := 0, 0
			stop := make(chan struct{})
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						err := r.UseTarget(func(fd int, flag sys.RegisterOp) error {
							_, err := registerPersonality(fd, flag)
							mu.Lock()
							defer mu.Unlock()
							if flag == 0 {
								viaFd++
								if err != nil {
									t.Errorf("a register call through the fd %d failed: %v", fd, err)
								}
							} else {
								t.Errorf("UseTarget handed out the index %d off the registering thread (%v)", fd, err)
							}
							return nil
						})
						if errors.Is(err, uring.ErrNotIssuer) {
							mu.Lock()
							refused++
							mu.Unlock()
						} else if err != nil {
							t.Errorf("UseTarget: %v", err)
						}
						// Tempt the fd number into reuse.
						if f, err := os.Open("/dev/null"); err == nil {
							f.Close()
						}
					}
				}()
			}
			time.Sleep(time.Millisecond)
			require.NoError(t, r.CloseRingFd())
			time.Sleep(time.Millisecond)
			close(stop)
			wg.Wait()
			require.Positive(t, viaFd+refused)
		}()
	}
}

// vmFlags returns the VmFlags line of /proc/self/smaps for the mapping
// (VMA) holding addr.
func vmFlags(t *testing.T, addr uint64) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if rng, _, ok := strings.Cut(line, " "); ok && strings.Contains(rng, "-") {
			lo, hi, _ := strings.Cut(rng, "-")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && a <= addr && addr < b
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return line
		}
	}
	require.NoError(t, sc.Err())
	t.Fatalf("no mapping holds %#x in /proc/self/smaps", addr)
	return ""
}

func hasDontCopy(flags string) bool {
	for _, f := range strings.Fields(flags) {
		if f == "dc" {
			return true
		}
	}
	return false
}

// TestDontFork: the kernel records MADV_DONTFORK as the VmFlag "dc" (do
// not copy on fork) of each of the ring's mappings, also of the ones a
// Resize makes and of NO_MMAP rings' own memory.
func TestDontFork(t *testing.T) {
	check := func(t *testing.T, r *uring.Ring, want bool) {
		t.Helper()
		maps := uring.Mappings(r)
		require.NotEmpty(t, maps)
		for _, m := range maps {
			flags := vmFlags(t, sys.SliceAddr(m))
			require.Equal(t, want, hasDontCopy(flags), "mapping at %#x: %s", sys.SliceAddr(m), flags)
		}
	}
	t.Run("Mapped", func(t *testing.T) {
		r := ringtest.New(t, 8)
		check(t, r, false)
		require.NoError(t, r.DontFork())
		check(t, r, true)
		nop(t, r, 1)
		_, err := r.SubmitAndWait(1)
		require.NoError(t, err)
		require.Len(t, reapAll(t, r, 1), 1)
	})
	t.Run("NoMmap", func(t *testing.T) {
		testutil.Require(t, uring.CheckSetupFlag(sys.SetupNoMmap))
		r := ringtest.New(t, 8, uring.WithNoMmap())
		require.NoError(t, r.DontFork())
		check(t, r, true)
	})
	t.Run("Resize", func(t *testing.T) {
		testutil.Require(t, uring.CheckRegisterOp(sys.RegisterResizeRings))
		testutil.Require(t, uring.CheckSetupFlag(sys.SetupDeferTaskrun))
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r := ringtest.New(t, 8, uring.WithSingleIssuer(), uring.WithDeferTaskrun())
		require.NoError(t, r.DontFork())
		require.NoError(t, r.Resize(32, 0))
		check(t, r, true)
	})
	r, err := uring.New(4)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	require.ErrorIs(t, r.DontFork(), uring.ErrClosed)
}

// TestSetIOWait: with iowait off every wait passes IORING_ENTER_NO_IOWAIT,
// which the kernel takes (6.15; an unknown enter flag is EINVAL): a timed
// wait times out, a wait for a NOP returns it.
func TestSetIOWait(t *testing.T) {
	r := ringtest.New(t, 8)
	err := r.SetIOWait(false)
	testutil.Require(t, err)
	require.Equal(t, sys.EnterNoIOWait, uring.WaitFlags(r))
	_, err = r.WaitCQETimeout(10 * time.Millisecond)
	require.ErrorIs(t, err, uring.ErrTimeout)
	nop(t, r, 7)
	c, err := r.WaitCQEs(1)
	require.NoError(t, err)
	require.Equal(t, uint64(7), c.UserData)
	r.CQESeen(c)
	nop(t, r, 8)
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	require.Len(t, reapAll(t, r, 1), 1)

	require.NoError(t, r.SetIOWait(true))
	require.Equal(t, sys.EnterFlags(0), uring.WaitFlags(r))
	_, err = r.WaitCQETimeout(time.Millisecond)
	require.ErrorIs(t, err, uring.ErrTimeout)
	require.NoError(t, r.Close())
	require.ErrorIs(t, r.SetIOWait(false), uring.ErrClosed)
}

// sigPending reports whether sig is pending for thread tid.
func sigPending(t *testing.T, tid int, sig syscall.Signal) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigPnd:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			require.NoError(t, err)
			return m&(1<<(uint(sig)-1)) != 0
		}
	}
	t.Fatal("no SigPnd in the thread's status")
	return false
}

// TestWaitCQEsSigmask blocks SIGUSR1 on the test's thread and makes it
// pending there: a wait whose mask keeps it blocked times out with the
// signal still pending; a wait whose mask lets it through takes it and
// ends with EINTR, and the signal reaches the program (signal.Notify).
func TestWaitCQEsSigmask(t *testing.T) {
	r := ringtest.New(t, 8)
	got := make(chan os.Signal, 4)
	signal.Notify(got, syscall.SIGUSR1)
	defer signal.Stop(got)

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var block, old unix.Sigset_t
	block.Val[0] = 1 << (uint(syscall.SIGUSR1) - 1)
	require.NoError(t, unix.PthreadSigmask(unix.SIG_BLOCK, &block, &old))
	defer unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
	tid := unix.Gettid()
	require.NoError(t, unix.Tgkill(unix.Getpid(), tid, syscall.SIGUSR1))
	require.True(t, sigPending(t, tid, syscall.SIGUSR1))

	var keep sys.Sigset
	keep.Add(syscall.SIGUSR1)
	keep.Add(syscall.SIGURG) // the runtime's preemption signal: not this test's business
	_, err := r.WaitCQEsSigmask(1, 20*time.Millisecond, keep)
	require.ErrorIs(t, err, uring.ErrTimeout)
	require.True(t, sigPending(t, tid, syscall.SIGUSR1), "a wait whose mask blocks SIGUSR1 took it")
	select {
	case s := <-got:
		t.Fatalf("%v arrived while blocked", s)
	default:
	}

	// The same with a NOP to reap: the CQE, not the signal, ends the wait.
	nop(t, r, 3)
	submitted, err := r.SubmitAndWaitSigmask(1, 5*time.Second, keep)
	require.NoError(t, err)
	require.Equal(t, 1, submitted)
	require.Len(t, reapAll(t, r, 1), 1)

	var let sys.Sigset
	let.Add(syscall.SIGURG)
	_, err = r.WaitCQEsSigmask(1, 10*time.Second, let)
	require.ErrorIs(t, err, syscall.EINTR, "the wait whose mask lets SIGUSR1 through did not end with EINTR")
	select {
	case s := <-got:
		require.Equal(t, syscall.SIGUSR1, s)
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("SIGUSR1 was not delivered")
	}
	require.False(t, sigPending(t, tid, syscall.SIGUSR1))

	// A wait without a timeout ends on a CQE.
	nop(t, r, 4)
	c, err := r.WaitCQEsSigmask(1, -1, keep)
	require.NoError(t, err)
	require.Equal(t, uint64(4), c.UserData)
	r.CQESeen(c)
	c, err = r.WaitCQEsSigmask(1, 0, keep)
	require.ErrorIs(t, err, uring.ErrTimeout)
	require.Nil(t, c)
}

// TestSubmitAndWaitReg waits with arguments read from a registered wait
// region (6.13): a slot's timeout, the CQE of a NOP, a minimum wait that
// returns one CQE of the two asked for, and slots out of range.
func TestSubmitAndWaitReg(t *testing.T) {
	testutil.Require(t, uring.CheckEnterFlag(sys.EnterExtArgReg))
	r, err := uring.New(8, uring.WithDisabled())
	require.NoError(t, err)
	// A wait the kernel never ends fails the test instead of hanging it.
	tm := time.AfterFunc(10*time.Second, func() { r.Close() })
	defer tm.Stop()
	region, err := reg.RegisterWaitRegion(r, 4)
	require.NoError(t, err)
	defer func() {
		require.NoError(t, r.Close())
		require.NoError(t, region.Free())
	}()
	require.NoError(t, r.Enable())
	*region.Wait(1) = sys.RegWait{Ts: sys.Timespec{Nsec: int64(20 * time.Millisecond)}, Flags: sys.RegWaitTS}
	*region.Wait(2) = sys.RegWait{Ts: sys.Timespec{Sec: 10}, MinWaitUsec: 20000, Flags: sys.RegWaitTS}

	c, err := r.SubmitAndWaitReg(1, 1)
	require.ErrorIs(t, err, uring.ErrTimeout)
	require.Nil(t, c)

	nop(t, r, 9)
	c, err = r.SubmitAndWaitReg(1, 1)
	require.NoError(t, err)
	require.Equal(t, uint64(9), c.UserData)
	r.CQESeen(c)

	if r.Features()&sys.FeatMinTimeout != 0 {
		nop(t, r, 10)
		c, err = r.SubmitAndWaitReg(2, 2)
		require.NoError(t, err, "the minimum wait should end the wait with the one CQE there is")
		require.Equal(t, uint64(10), c.UserData)
		require.Equal(t, uint32(1), r.CQReady())
		r.CQESeen(c)
	}

	_, err = r.SubmitAndWaitReg(1, 64)
	require.ErrorIs(t, err, syscall.EFAULT, "a slot past the region")
	_, err = r.SubmitAndWaitReg(1, -1)
	require.ErrorIs(t, err, syscall.EINVAL)
	require.ErrorContains(t, err, "index")

	plain := ringtest.New(t, 4)
	_, err = plain.SubmitAndWaitReg(1, 0)
	require.ErrorIs(t, err, syscall.EFAULT, "a ring without a wait region")
}

// TestExtWaitsAllocateNothing: a NOP round trip through the waits with a
// signal mask and with a registered wait slot allocates nothing.
func TestExtWaitsAllocateNothing(t *testing.T) {
	r := ringtest.New(t, 8)
	var mask sys.Sigset
	mask.Add(syscall.SIGURG)
	fails := 0
	allocs := testing.AllocsPerRun(200, func() {
		s, _ := r.GetSQE()
		s.Opcode, s.Fd, s.UserData = sys.OpNop, -1, 1
		c, err := r.WaitCQEsSigmask(1, time.Second, mask)
		if err != nil {
			fails++
			return
		}
		r.CQESeen(c)
	})
	require.Zero(t, fails)
	require.Zero(t, allocs, "WaitCQEsSigmask")

	if uring.CheckEnterFlag(sys.EnterExtArgReg) != nil {
		return
	}
	rr, err := uring.New(8, uring.WithDisabled())
	require.NoError(t, err)
	region, err := reg.RegisterWaitRegion(rr, 2)
	require.NoError(t, err)
	defer func() {
		require.NoError(t, rr.Close())
		require.NoError(t, region.Free())
	}()
	require.NoError(t, rr.Enable())
	*region.Wait(1) = sys.RegWait{Ts: sys.Timespec{Sec: 1}, Flags: sys.RegWaitTS}
	allocs = testing.AllocsPerRun(200, func() {
		s, _ := rr.GetSQE()
		s.Opcode, s.Fd, s.UserData = sys.OpNop, -1, 1
		c, err := rr.SubmitAndWaitReg(1, 1)
		if err != nil {
			fails++
			return
		}
		rr.CQESeen(c)
	})
	require.Zero(t, fails)
	require.Zero(t, allocs, "SubmitAndWaitReg")
}
