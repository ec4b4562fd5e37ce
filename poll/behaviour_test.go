//go:build linux

package poll

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// rawFd returns f's descriptor without switching it to blocking mode.
func rawFd(t testing.TB, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	require.NoError(t, err)
	fd := -1
	require.NoError(t, rc.Control(func(p uintptr) { fd = int(p) }))
	return fd
}

// pipe returns the read end's fd of a pipe nobody writes (closed at the end
// of the test) and the write end.
func pipe(t testing.TB) (int, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })
	return rawFd(t, r), w
}

func prepRead(fd int, buf []byte) func(*sys.SQE) error {
	return func(s *sys.SQE) error {
		*s = sys.SQE{Opcode: sys.OpRead, Fd: int32(fd), Addr: sys.SliceAddr(buf), Len: uint32(len(buf)), Off: ^uint64(0)}
		return nil
	}
}

// hangGuard bounds a wait that only a bug makes long (a wakeup or a
// completion that never comes); it is never what a test checks, and it is
// wide enough for a loaded machine or qemu without KVM.
const hangGuard = time.Minute

// waitInFlight polls Stats until n operations are in flight.
func waitInFlight(t *testing.T, l *Loop, n int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for l.Stats().InFlight < n {
		require.True(t, time.Now().Before(deadline), "only %d of %d in flight", l.Stats().InFlight, n)
		time.Sleep(time.Millisecond)
	}
}

// TestShutdownInFlight: Close with 1,000 reads in flight on pipes nobody
// writes: every waiter gets ErrClosed (only the loop's cancels can end
// those reads), and the loop waits for every CQE before closing the ring.
func TestShutdownInFlight(t *testing.T) {
	for _, st := range []Strategy{Block, Spin, Hybrid, SQPoll, Park} {
		t.Run(st.String(), func(t *testing.T) {
			l, err := New(WithStrategy(st), WithEntries(64))
			require.NoError(t, err)
			var fds [8]int
			for i := range fds {
				fds[i], _ = pipe(t)
			}
			const n = 1000
			var wg sync.WaitGroup
			errs := make([]error, n)
			bufs := make([][]byte, n)
			for i := 0; i < n; i++ {
				bufs[i] = make([]byte, 16)
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = l.Do(context.Background(), prepRead(fds[i%len(fds)], bufs[i]))
				}()
			}
			tw := time.Now()
			waitInFlight(t, l, n)
			t.Logf("%d in flight after %v", n, time.Since(tw))
			t0 := time.Now()
			closed := make(chan error, 1)
			go func() {
				err := l.Close()
				wg.Wait()
				closed <- err
			}()
			select {
			case err := <-closed:
				require.NoError(t, err)
			case <-time.After(hangGuard): // a hang guard, not a timing check
				t.Fatalf("Close with %d reads in flight never returned, or some waiter was never answered", n)
			}
			took := time.Since(t0)
			for i, err := range errs {
				require.ErrorIs(t, err, uring.ErrClosed, "waiter %d", i)
			}
			s := l.Stats() // final counters
			require.Equal(t, 0, s.InFlight)
			require.Equal(t, uint64(n), s.Completed)
			require.NotZero(t, s.Cancels)
			_, err = l.Do(context.Background(), prepNop)
			require.ErrorIs(t, err, uring.ErrClosed)
			require.ErrorIs(t, l.Close(), uring.ErrClosed)
			require.ErrorIs(t, l.Go(prepNop, func(Result, error) {}), uring.ErrClosed)
			require.ErrorIs(t, l.Run(func() {}), uring.ErrClosed)
			t.Logf("closed with %d in flight in %v", n, took)
		})
	}
}

// TestSQPollIdleGaps: ops separated by gaps longer than the SQ thread's
// idle time: the thread sleeps between bursts and Submit wakes it.
func TestSQPollIdleGaps(t *testing.T) {
	l := newLoop(t, WithStrategy(SQPoll), WithSQPollIdle(10*time.Millisecond))
	for burst := 0; burst < 5; burst++ {
		time.Sleep(30 * time.Millisecond)
		for i := 0; i < 20; i++ {
			res, err := l.Do(context.Background(), prepNop)
			require.NoError(t, err)
			require.Equal(t, int32(0), res.Res)
		}
	}
	s := l.Stats()
	require.Equal(t, uint64(100), s.Completed)
	require.GreaterOrEqual(t, s.SQWakeups, uint64(4), "the SQ thread must have slept in the gaps")
}

// TestIOPollODirect: an O_DIRECT read on an IOPOLL loop on a device
// without poll queues returns EOPNOTSUPP, clearly, instead of hanging.
func TestIOPollODirect(t *testing.T) {
	for _, st := range []Strategy{IOPoll, HybridIOPoll} {
		t.Run(st.String(), func(t *testing.T) {
			l := newLoop(t, WithStrategy(st))
			path := filepath.Join(t.TempDir(), "data")
			require.NoError(t, os.WriteFile(path, make([]byte, 1<<16), 0o600))
			f, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECT, 0)
			if errors.Is(err, unix.EINVAL) {
				t.Skipf("the filesystem of %s rejects O_DIRECT (EINVAL)", path)
			}
			require.NoError(t, err)
			defer f.Close()
			buf := alignedBuf(4096)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := l.Do(ctx, func(s *sys.SQE) error {
				*s = sys.SQE{Opcode: sys.OpRead, Fd: int32(rawFd(t, f)), Addr: sys.SliceAddr(buf), Len: 4096}
				return nil
			})
			if err == nil {
				require.Equal(t, int32(4096), res.Res, "the device polls: the read must succeed")
				t.Skip("this block device has poll queues: IOPOLL reads succeed")
			}
			require.ErrorIs(t, err, unix.EOPNOTSUPP)
			var oe *OpError
			require.ErrorAs(t, err, &oe)
			require.Equal(t, sys.OpRead, oe.Op)
			require.Contains(t, err.Error(), "poll queues")
			require.Equal(t, -int32(unix.EOPNOTSUPP), res.Res)
			// The loop keeps working afterwards.
			_, err = l.Do(context.Background(), prepNop)
			require.NoError(t, err)
		})
	}
}

// alignedBuf returns n bytes aligned to 4096 for O_DIRECT.
func alignedBuf(n int) []byte {
	b := make([]byte, n+4096)
	off := int(4096 - sys.SliceAddr(b)%4096)
	return b[off%4096 : off%4096+n]
}

// TestDoContextCancel: a read nobody satisfies, with a deadline: Do cancels
// it, waits for its CQE, and returns the context's error.
func TestDoContextCancel(t *testing.T) {
	for _, st := range []Strategy{Block, Spin, SQPoll, Park} {
		t.Run(st.String(), func(t *testing.T) {
			l := newLoop(t, WithStrategy(st))
			fd, _ := pipe(t)
			buf := make([]byte, 8)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			res, err := l.Do(ctx, prepRead(fd, buf))
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.Equal(t, -int32(unix.ECANCELED), res.Res)
			s := l.Stats()
			require.Equal(t, 0, s.InFlight)
			require.Equal(t, uint64(1), s.Cancels)
			// An already-cancelled context never reaches the loop.
			_, err = l.Do(ctx, prepNop)
			require.ErrorIs(t, err, context.DeadlineExceeded)
		})
	}
}

// TestWakePrompt: a loop asleep in the kernel (a read in flight keeps it
// from parking, WaitTimeout is long) answers another goroutine's Do: the
// wake eventfd's poll ends the wait, on every kernel.
func TestWakePrompt(t *testing.T) {
	l := newLoop(t, WithStrategy(Block), WithWaitTimeout(time.Hour))
	require.Equal(t, "poll", l.Stats().Wakeup)
	fd, w := pipe(t)
	buf := make([]byte, 8)
	got := make(chan Result, 1)
	require.NoError(t, l.Go(prepRead(fd, buf), func(r Result, err error) { got <- r }))
	waitInFlight(t, l, 1)
	for i := 0; i < 20; i++ {
		waitSleeping(t, l, sleepKernel)
		_, err := l.Do(context.Background(), prepNop) // hangs for an hour unless woken
		require.NoError(t, err)
	}
	s := l.Stats()
	require.GreaterOrEqual(t, s.Kicks, uint64(20), "every Do found the loop asleep in the kernel")
	require.NotZero(t, s.WakeCQEs)
	// The read still completes when data comes.
	_, err := w.Write([]byte("hi"))
	require.NoError(t, err)
	r := <-got
	require.Equal(t, int32(2), r.Res)
	require.Equal(t, "hi", string(buf[:2]))
}

// waitSleeping waits until the loop sleeps in the given way (it reads the
// Core's sleep state without posting to the loop, which would wake it).
func waitSleeping(t *testing.T, l *Loop, state uint32) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for l.c.sl.State() != state {
		require.True(t, time.Now().Before(deadline), "the loop never went to sleep (state %d, want %d)", l.c.sl.State(), state)
		time.Sleep(50 * time.Microsecond)
	}
}

// TestStaleCQE: a CQE carrying a freed slot's old generation is counted and
// never delivered (to the slot's new owner in particular).
func TestStaleCQE(t *testing.T) {
	l := newLoop(t)
	var calls int
	h := HandlerFunc(func(*sys.CQE) { calls++ })
	var first Token
	done := make(chan struct{})
	var err1, err2, err3 error
	require.NoError(t, l.Run(func() {
		first, err1 = l.Prep(HandlerFunc(func(*sys.CQE) { close(done) }), prepNop)
	}))
	require.NoError(t, err1)
	<-done
	var second Token
	require.NoError(t, l.Run(func() {
		// Reuse the slot, then forge a NOP with the first (now stale) token.
		second, err2 = l.Prep(h, func(s *sys.SQE) error {
			*s = sys.SQE{Opcode: sys.OpRead, Fd: -1} // fails with EBADF: one CQE
			return nil
		})
		var s *sys.SQE
		if s, err3 = l.ring.GetSQE(); err3 == nil {
			*s = sys.SQE{Opcode: sys.OpNop, Fd: -1, UserData: uint64(first)}
		}
	}))
	require.NoError(t, err2)
	require.NoError(t, err3)
	require.Equal(t, uint32(first), uint32(second), "the free list reuses the slot")
	require.NotEqual(t, first, second)
	require.Eventually(t, func() bool { return l.Stats().Stale == 1 }, hangGuard, time.Millisecond)
	require.Eventually(t, func() bool { return l.Stats().InFlight == 0 }, hangGuard, time.Millisecond)
	var got int
	require.NoError(t, l.Run(func() { got = calls }))
	require.Equal(t, 1, got)
}

// multishotTimeout posts count CQEs, the first count-1 with F_MORE
// (IORING_TIMEOUT_MULTISHOT, 6.4).
type multishotTimeout struct {
	ts    sys.Timespec
	count uint64
	got   []Result
	done  chan struct{}
}

func (m *multishotTimeout) Prep(s *sys.SQE) error {
	*s = sys.SQE{Opcode: sys.OpTimeout, Fd: -1, Addr: sys.PtrAddr(&m.ts), Len: 1, Off: m.count, OpFlags: sys.TimeoutMultishot}
	return nil
}

func (m *multishotTimeout) Handle(c *sys.CQE) {
	m.got = append(m.got, Result{c.Res, c.Flags})
	if c.Flags&sys.CQEFMore == 0 {
		close(m.done)
	}
}

// TestMultishot: the handler stays registered while F_MORE is set.
func TestMultishot(t *testing.T) {
	testutil.Require(t, uring.CheckCapability(uring.CapMultishotTimeout))
	l := newLoop(t)
	m := &multishotTimeout{ts: sys.Timespec{Nsec: int64(time.Millisecond)}, count: 3, done: make(chan struct{})}
	var inflight int
	var err error
	require.NoError(t, l.Run(func() { _, err = l.Start(m) }))
	require.NoError(t, err)
	<-m.done
	require.NoError(t, l.Run(func() { inflight = l.InFlight() }))
	require.Equal(t, 0, inflight)
	require.Len(t, m.got, 3)
	for i, r := range m.got {
		if r.Res == -int32(unix.EINVAL) {
			t.Skip("IORING_TIMEOUT_MULTISHOT needs Linux 6.4")
		}
		require.Equal(t, -int32(unix.ETIME), r.Res)
		require.Equal(t, i < 2, r.More(), "CQE %d", i)
	}
}

// TestLoopThreadOnly: the loop-thread methods refuse other goroutines (in
// test builds), and Run executes on the loop's thread.
func TestLoopThreadOnly(t *testing.T) {
	l := newLoop(t)
	_, err := l.Prep(HandlerFunc(func(*sys.CQE) {}), prepNop)
	require.ErrorIs(t, err, ErrNotLoopThread)
	require.ErrorIs(t, l.Cancel(1), ErrNotLoopThread)
	var tid int
	require.NoError(t, l.Run(func() { tid = sys.Gettid() }))
	require.Equal(t, l.tid, tid)
	require.NotEqual(t, sys.Gettid(), tid)
}

// TestCloseFromHandler: Close on the loop thread starts the shutdown.
func TestCloseFromHandler(t *testing.T) {
	l, err := New()
	require.NoError(t, err)
	var cerr error
	require.NoError(t, l.Run(func() { cerr = l.Close() }))
	require.NoError(t, cerr)
	select {
	case <-l.Done():
	case <-time.After(hangGuard):
		t.Fatal("loop did not exit")
	}
	require.ErrorIs(t, l.Close(), uring.ErrClosed)
}

// TestPrepError: a failing prep reaches the caller and holds no slot.
func TestPrepError(t *testing.T) {
	l := newLoop(t)
	bad := errors.New("bad argument")
	_, err := l.Do(context.Background(), func(*sys.SQE) error { return bad })
	require.ErrorIs(t, err, bad)
	res, err := l.Do(context.Background(), func(s *sys.SQE) error {
		*s = sys.SQE{Opcode: sys.OpRead, Fd: -1}
		return nil
	})
	require.ErrorIs(t, err, unix.EBADF)
	require.Equal(t, -int32(unix.EBADF), res.Res)
	require.Equal(t, 0, l.Stats().InFlight)
}

// TestOptionErrors: a bad option argument is an *OptionError naming the
// option and its argument (errors.Is EINVAL), and no loop starts.
func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		opts   []Option
		option string
	}{
		{[]Option{WithStrategy(99)}, "WithStrategy"},
		{[]Option{WithEntries(1 << 20)}, "WithEntries"},
		{[]Option{WithEntries(64), WithCQEntries(8)}, "WithCQEntries"},
		{[]Option{WithSpinBudget(-1)}, "WithSpinBudget"},
		{[]Option{WithSpinTime(-1)}, "WithSpinTime"},
		{[]Option{WithWaitTimeout(-1)}, "WithWaitTimeout"},
		{[]Option{WithWaitBatch(8, -1)}, "WithWaitBatch"},
		{[]Option{WithSQPollIdle(-1)}, "WithSQPollIdle"},
		{[]Option{WithSlots(-1)}, "WithSlots"},
	} {
		l, err := New(c.opts...)
		require.Nil(t, l)
		var oe *OptionError
		require.ErrorAs(t, err, &oe)
		require.Equal(t, c.option, oe.Option)
		require.Contains(t, err.Error(), c.option)
		require.ErrorIs(t, err, unix.EINVAL)
	}
}

// TestWaitBatch: a loop that asks the kernel for 8 CQEs per wait still
// answers a lone operation after MinWait, not after WaitTimeout
// (IORING_FEAT_MIN_TIMEOUT). The WaitTimeout is an hour, far past the hang
// guard, and nothing wakes the loop: only the min-wait can end the kernel
// wait that the read's CQE lands in.
func TestWaitBatch(t *testing.T) {
	l := newLoop(t, WithStrategy(Block), WithWaitBatch(8, time.Millisecond), WithWaitTimeout(time.Hour))
	var batch uint32
	var minTimeout bool
	require.NoError(t, l.Run(func() {
		batch, minTimeout = l.cfg.WaitBatch, l.Ring().Features()&sys.FeatMinTimeout != 0
	}))
	if !minTimeout {
		// Without the feature the loop never holds a ready CQE back.
		require.Equal(t, uint32(1), batch)
	} else {
		require.Equal(t, uint32(8), batch, "the loop's kernel waits ask for 8 CQEs")
	}
	fd, w := pipe(t)
	buf := make([]byte, 8)
	got := make(chan Result, 1)
	require.NoError(t, l.Go(prepRead(fd, buf), func(r Result, err error) { got <- r }))
	waitInFlight(t, l, 1)
	waitSleeping(t, l, sleepKernel) // in its batched wait, with the read in flight
	kicks0 := l.c.kicks.Load()
	_, err := w.Write([]byte("x"))
	require.NoError(t, err)
	select {
	case r := <-got:
		require.Equal(t, int32(1), r.Res)
		require.Equal(t, "x", string(buf[:1]))
	case <-time.After(hangGuard): // a hang guard, not a timing check
		t.Fatalf("a lone CQE was held back until the wait timeout (wait batch %d)", batch)
	}
	require.Equal(t, kicks0, l.c.kicks.Load(), "the read's CQE ended the wait, not a wakeup")
	s := l.Stats()
	require.Equal(t, uint64(1), s.Completed)
	require.Zero(t, s.InFlight)
}
