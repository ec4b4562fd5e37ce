//go:build linux

package tests

import (
	"bufio"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// scale picks the count for a stress loop: long under the soak tag, short
// with -short, def otherwise; a tenth of it under the race detector.
func scale(def, short, long int) int {
	n := def
	switch {
	case soakTag && !testing.Short():
		n = long
	case testing.Short():
		n = short
	}
	if raceEnabled {
		n = max(n/10, 1)
	}
	return emulated(n)
}

// emulated divides a count by 5 under emulation (URING_TEST_EMULATED=1,
// set by the kernel matrix's VMs, which run without KVM and 5 to 10 times
// slower): there the suite checks what each kernel does, and the full
// counts run natively.
func emulated(n int) int {
	if os.Getenv("URING_TEST_EMULATED") == "1" {
		return max(n/5, 1)
	}
	return n
}

// rawFd returns f's descriptor without switching it to blocking mode.
func rawFd(t testing.TB, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	require.NoError(t, err)
	fd := -1
	require.NoError(t, rc.Control(func(p uintptr) { fd = int(p) }))
	return fd
}

// pipe returns both ends of a pipe, closed at the end of the test.
func pipe(t testing.TB) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// fdCount counts this process's open fds.
func fdCount(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(ents)
}

// eventuallyFds waits until the fd count is back to want (closes done by
// the kernel or an executor are asynchronous).
func eventuallyFds(t testing.TB, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := fdCount(t)
		if got <= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("fd count %d, want %d: fds leaked", got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// rssKB reads VmRSS from /proc/self/status.
func rssKB(t testing.TB) int {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// submitWait submits and waits for n CQEs, returning copies of them.
func submitWait(t testing.TB, r *uring.Ring, n int) []sys.CQE {
	t.Helper()
	_, err := r.Submit()
	require.NoError(t, err)
	return reap(t, r, n)
}

// reap waits for n CQEs (5 s at most) and returns copies of them.
func reap(t testing.TB, r *uring.Ring, n int) []sys.CQE {
	t.Helper()
	out := make([]sys.CQE, 0, n)
	buf := make([]sys.CQE, 64)
	deadline := time.Now().Add(5 * time.Second)
	for len(out) < n {
		got := r.Reap(buf[:min(len(buf), n-len(out))])
		out = append(out, buf[:got]...)
		if got == 0 {
			require.True(t, time.Now().Before(deadline), "only %d of %d CQEs", len(out), n)
			if _, err := r.WaitCQETimeout(100 * time.Millisecond); err != nil && err != uring.ErrTimeout {
				require.NoError(t, err)
			}
		}
	}
	return out
}

// byUD indexes CQEs by user_data, failing on a duplicate.
func byUD(t testing.TB, cs []sys.CQE) map[uint64]sys.CQE {
	t.Helper()
	m := make(map[uint64]sys.CQE, len(cs))
	for _, c := range cs {
		_, dup := m[c.UserData]
		require.False(t, dup, "user_data %#x completed twice", c.UserData)
		m[c.UserData] = c
	}
	return m
}

// getSQE hands out an SQE or fails the test.
func getSQE(t testing.TB, r *uring.Ring) *sys.SQE {
	t.Helper()
	s, err := r.GetSQE()
	require.NoError(t, err)
	return s
}

// cancelRace drives rounds of a read (user_data 1), an ASYNC_CANCEL of it
// (2) and a write of one byte that satisfies it (3) on r, in an order picked
// at random: one batch read+write+cancel or read+cancel+write; the read in
// flight first, then write and cancel together; or the read in flight, a
// write(2) from here, then the cancel. Plain checks, not testify: it runs
// 100 k times.
type cancelRace struct {
	t    *testing.T
	r    *uring.Ring
	rng  *rand.Rand
	read func(s *sys.SQE) error
	pw   int
	wb   []byte // the byte the round writes
	cqes []sys.CQE
}

func (c *cancelRace) put(ud uint64, prep func(s *sys.SQE) error) {
	s, err := c.r.GetSQE()
	if err == nil {
		err = prep(s)
	}
	if err != nil {
		c.t.Fatalf("prep %d: %v", ud, err)
	}
	s.UserData = ud
}

func (c *cancelRace) submit() {
	if _, err := c.r.Submit(); err != nil {
		c.t.Fatalf("Submit: %v", err)
	}
}

// round runs round i and returns its CQEs by user_data (m[3] is zero when
// the write went through write(2)); a ring write that did not write its
// byte fails the test.
func (c *cancelRace) round(i int) (m [4]sys.CQE) {
	cancel := func(s *sys.SQE) error { return sqe.Cancel(s, 1, 0) }
	write := func(s *sys.SQE) error { return sqe.Write(s, c.pw, c.wb, sqe.CurrentPos) }
	want := 3
	c.put(1, c.read)
	switch c.rng.IntN(4) {
	case 0:
		c.put(3, write)
		c.put(2, cancel)
	case 1:
		c.put(2, cancel)
		c.put(3, write)
	case 2:
		c.submit()
		c.put(3, write)
		c.put(2, cancel)
	default:
		c.submit()
		if _, err := unix.Write(c.pw, c.wb); err != nil {
			c.t.Fatalf("round %d: write: %v", i, err)
		}
		c.put(2, cancel)
		want = 2
	}
	c.submit()
	for got := 0; got < want; {
		n := c.r.Reap(c.cqes)
		if n == 0 {
			if _, err := c.r.WaitCQETimeout(5 * time.Second); err != nil {
				c.t.Fatalf("round %d: %d of %d CQEs: %v", i, got, want, err)
			}
		}
		for _, e := range c.cqes[:n] {
			if e.UserData == reg.InternalUserData {
				// A BufPool's own PROVIDE_BUFFERS (kernels without buffer
				// rings, before 5.19): a failed one loses a buffer.
				if e.Res < 0 {
					c.t.Fatalf("round %d: the pool's PROVIDE_BUFFERS failed: %d", i, e.Res)
				}
				continue
			}
			if e.UserData < 1 || e.UserData > 3 || m[e.UserData].UserData != 0 {
				c.t.Fatalf("round %d: unexpected or duplicate CQE %+v", i, e)
			}
			m[e.UserData] = e
			got++
		}
	}
	if want == 3 && m[3].Res != 1 {
		c.t.Fatalf("round %d: the write: %d", i, m[3].Res)
	}
	return m
}

// Bounds on waits, so that a missing wakeup fails its test with a message
// instead of stalling the binary until -timeout. Generous: a slow VM (qemu
// without KVM) must not reach them.
const (
	opBound    = 10 * time.Second // one operation, one Close
	stallBound = 30 * time.Second // a stress loop without progress
)

// waitFor runs fn on a goroutine and waits at most d for it to return,
// failing the test with what when it does not (the goroutine stays
// behind). fn must not call t's methods.
func waitFor(t testing.TB, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still blocked after %v", what, d)
	}
}

// closeAtEnd closes c (an executor, runtime or loop) at the end of the
// test, failing it when Close hangs; a Close the test made first is
// repeated harmlessly.
func closeAtEnd(t testing.TB, what string, closeFn func() error) {
	t.Helper()
	t.Cleanup(func() { waitFor(t, opBound, what+".Close", func() { _ = closeFn() }) })
}

// runTask runs fn as a task on ex (with context.Background, so that its
// ops carry no deadline) and waits at most d for it, failing the test when
// the task is still running then.
func runTask[R any](t testing.TB, ex *task.Executor, d time.Duration, fn func(*task.T) (R, error)) (R, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	v, err := task.SpawnOn(context.Background(), ex, fn).Wait(ctx)
	if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the task was still running after %v", d)
	}
	return v, err
}

// inKernel waits until the task that sets started just before its op has
// parked on that op and the executor has submitted it. ex.Do's fn runs on
// the executor's thread between tasks, so a started task seen there is
// parked in its op; an SQ with nothing left unsubmitted means the op
// reached the kernel.
func inKernel(t testing.TB, ex *task.Executor, started *atomic.Bool) {
	t.Helper()
	deadline := time.Now().Add(opBound)
	for {
		var in bool
		require.NoError(t, ex.Do(func() { in = started.Load() && ex.Ring().SQReady() == 0 }))
		if in {
			return
		}
		require.True(t, time.Now().Before(deadline), "the task's op never reached the kernel")
		time.Sleep(time.Millisecond)
	}
}

// runTaskWatched runs fn as a task on ex (with context.Background) and
// waits for it as long as progress, a counter the task advances, moves: a
// stress loop that stops making progress for stallBound fails the test,
// naming where it stopped, however slow the machine is.
func runTaskWatched[R any](t testing.TB, ex *task.Executor, progress *atomic.Int64, fn func(*task.T) (R, error)) (R, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := task.SpawnOn(context.Background(), ex, fn)
	type result struct {
		v   R
		err error
	}
	done := make(chan result, 1)
	go func() { v, err := h.Wait(ctx); done <- result{v, err} }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last, at := progress.Load(), time.Now()
	for {
		select {
		case r := <-done:
			return r.v, r.err
		case <-tick.C:
			if p := progress.Load(); p != last {
				last, at = p, time.Now()
			} else if time.Since(at) > stallBound {
				t.Fatalf("the task made no progress for %v (stuck at %d)", stallBound, p)
			}
		}
	}
}
