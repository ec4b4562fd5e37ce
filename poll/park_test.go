//go:build linux

package poll

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// asyncOp is a NOP (completes inline at submit) or a relative timeout of a
// few µs (completes later, from a timer, through deferred task work): the
// loop has to wait for it, so the strategy's wait and wakeup run.
type asyncOp struct {
	d     *asyncDriver
	id    int
	armed bool
	timer bool
	ts    sys.Timespec // read by the kernel at submit
}

func (o *asyncOp) Prep(s *sys.SQE) error {
	if !o.timer {
		return prepNop(s)
	}
	*s = sys.SQE{Opcode: sys.OpTimeout, Fd: -1, Addr: sys.PtrAddr(&o.ts), Len: 1}
	return nil
}

func (o *asyncOp) Handle(c *sys.CQE) {
	d := o.d
	want := int32(0)
	if o.timer {
		want = -int32(unix.ETIME)
	}
	switch {
	case !o.armed:
		d.fail(fmt.Errorf("op %d: CQE delivered to a handler not in flight", o.id))
	case c.Res != want:
		d.fail(fmt.Errorf("op %d (timer %v): res %d", o.id, o.timer, c.Res))
	}
	o.armed = false
	d.seen[o.id]++
	d.outstanding--
	if d.outstanding == 0 {
		d.batch()
	}
}

type asyncDriver struct {
	l           *Loop
	ops         [64]asyncOp
	seen        []uint8
	next        int
	outstanding int
	rng         *rand.Rand
	done        chan struct{}
	err         error
}

func (d *asyncDriver) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// batch starts 1..64 ops, about one in eight a 1..50µs timeout.
func (d *asyncDriver) batch() {
	if d.next >= len(d.seen) || d.err != nil {
		close(d.done)
		return
	}
	k := min(1+d.rng.IntN(len(d.ops)), len(d.seen)-d.next)
	for i := 0; i < k; i++ {
		o := &d.ops[i]
		o.id, o.armed = d.next, true
		o.timer = d.rng.IntN(8) == 0
		o.ts = sys.Timespec{Nsec: int64(1000 + d.rng.IntN(50_000))}
		d.next++
		if _, err := d.l.Start(o); err != nil {
			d.fail(fmt.Errorf("Start op %d: %w", o.id, err))
			close(d.done)
			return
		}
		d.outstanding++
	}
}

// TestAsyncStressExactlyOnce: random batches of NOPs and short timeouts
// from the loop thread, while 4 goroutines call Do at once, so that the
// loop waits for completions and is woken in its waits, over and over:
// every op is delivered exactly once, every Do answered.
func TestAsyncStressExactlyOnce(t *testing.T) {
	total := 100_000
	if testing.Short() {
		total = 20_000
	}
	for _, st := range []Strategy{Block, Spin, Hybrid, SQPoll, Park} {
		t.Run(st.String(), func(t *testing.T) {
			n := total
			if st == SQPoll {
				n /= 4
			}
			l := newLoop(t, WithStrategy(st))
			d := &asyncDriver{l: l, seen: make([]uint8, n), rng: rand.New(rand.NewPCG(uint64(st), 3)), done: make(chan struct{})}
			for i := range d.ops {
				d.ops[i].d = d
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var dos atomic.Int64
			errs := make(chan error, 4)
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
						res, err := l.Do(context.Background(), prepNop)
						if err != nil || res.Res != 0 {
							errs <- fmt.Errorf("Do: res %d err %v", res.Res, err)
							return
						}
						dos.Add(1)
						time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
					}
				}()
			}
			t0 := time.Now()
			require.NoError(t, l.Run(d.batch))
			select {
			case <-d.done:
			case <-time.After(60 * time.Second):
				t.Fatalf("stuck after %d of %d ops", d.next, n)
			}
			close(stop)
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			require.NoError(t, d.err)
			for i, c := range d.seen {
				if c != 1 {
					t.Fatalf("op %d delivered %d times", i, c)
				}
			}
			s := l.Stats()
			require.Equal(t, uint64(n)+uint64(dos.Load()), s.Completed)
			require.Equal(t, uint64(0), s.Stale)
			require.Equal(t, 0, s.InFlight)
			if st == Block || st == Park {
				require.NotZero(t, s.Waits, "the timeouts must make the loop wait")
			}
			t.Logf("%d ops + %d Do in %v; waits %d, kicks %d, enters %d, block %v",
				n, dos.Load(), time.Since(t0), s.Waits, s.Kicks, s.Enters, time.Duration(s.BlockNanos))
		})
	}
}

// exerciseAtGOMAXPROCS1 runs, at GOMAXPROCS=1, the work a loop shares
// the only P with while it waits for a pipe read nobody writes yet: Do
// round trips, goroutines handing work to each other while a third makes
// the loop run again and again, a pipe echo through the loop, and finally
// the read's completion. Each step is a fixed count, bounded so that a
// loop that never lets go of the P fails instead of hanging.
func exerciseAtGOMAXPROCS1(t *testing.T, st Strategy) Stats {
	l := newLoop(t, WithStrategy(st), WithWaitTimeout(30*time.Second))
	fd, w := pipe(t)
	buf := make([]byte, 8)
	got := make(chan struct{}, 1)
	require.NoError(t, l.Go(prepRead(fd, buf), func(r Result, err error) {
		if err == nil && r.Res == 2 {
			got <- struct{}{}
		}
	}))
	waitInFlight(t, l, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	for range 100 {
		time.Sleep(200 * time.Microsecond) // the loop goes back to waiting
		_, err := l.Do(ctx, prepNop)
		require.NoError(t, err)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Microsecond):
			}
			_, _ = l.Do(ctx, prepNop)
		}
	}()
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	for i := range 2000 {
		ping <- i
		require.Equal(t, i, <-pong)
	}
	close(ping)
	close(stop)
	wg.Wait()

	// Echo: a goroutine writes a pipe, the loop's read completes and its
	// handler (which re-arms the read) wakes the goroutine: the pattern of
	// a network client served by the loop.
	efd, ew := pipe(t)
	ebuf := make([]byte, 8)
	echo := make(chan struct{}, 1)
	var h HandlerFunc
	h = func(c *sys.CQE) {
		echo <- struct{}{}
		if c.Res > 0 {
			_, _ = l.Prep(h, prepRead(efd, ebuf))
		}
	}
	var perr error
	require.NoError(t, l.Run(func() { _, perr = l.Prep(h, prepRead(efd, ebuf)) }))
	require.NoError(t, perr)
	waitInFlight(t, l, 2)
	for range 100 {
		_, err := ew.Write([]byte{1})
		require.NoError(t, err)
		select {
		case <-echo:
		case <-ctx.Done():
			t.Fatalf("the echo read never completed: %s", loopState(l))
		}
	}

	_, err := w.Write([]byte("hi"))
	require.NoError(t, err)
	select {
	case <-got:
	case <-ctx.Done():
		t.Fatalf("the read never completed: %s", loopState(l))
	}
	require.Equal(t, "hi", string(buf[:2]))
	return l.Stats()
}

// TestParkFairness: with GOMAXPROCS=1, a Park loop waiting for completions
// leaves the only P to ordinary goroutines: every wait is a park in Go's
// netpoller (none in io_uring_enter, where the P stays with the loop until
// sysmon retakes it), and the work of the goroutines and the loop all
// completes. Block, run alongside, waits in io_uring_enter and must still
// complete everything.
func TestParkFairness(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, st := range []Strategy{Block, Park} {
		t.Run(st.String(), func(t *testing.T) {
			s := exerciseAtGOMAXPROCS1(t, st)
			cs := s.Core
			t.Logf("%v: waits %d, netpoll parks %d, kernel sleeps %d, kicks %d", st, s.Waits, cs.NetParks, cs.Sleeps, s.Kicks)
			if st == Park {
				require.Zero(t, cs.Sleeps, "a Park loop slept in io_uring_enter, holding the only P")
				require.NotZero(t, cs.NetParks, "a Park loop never parked in the netpoller")
			} else {
				require.NotZero(t, cs.Sleeps)
			}
		})
	}
}

// TestParkWake: a Park loop parked on its eventfd with a read in flight is
// woken by Do through the eventfd, and by the read's completion: on the
// default SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG ring (completions wait
// as deferred task work, which signals the eventfd) and on a plain ring
// (completions posted by task work that interrupts the parked thread).
func TestParkWake(t *testing.T) {
	for _, plain := range []bool{false, true} {
		name := "defer-taskrun"
		if plain {
			name = "plain"
		}
		t.Run(name, func(t *testing.T) { testParkWake(t, plain) })
	}
}

func testParkWake(t *testing.T, plain bool) {
	// An hour, far past the hang guard: a park that no wakeup or completion
	// ends makes the test fail instead of passing late.
	opts := []Option{WithWaitTimeout(time.Hour)}
	if plain {
		opts = append(opts, WithoutDeferTaskrun())
	}
	l := newLoop(t, opts...)
	require.Equal(t, "eventfd", l.Stats().Wakeup)
	var flags sys.SetupFlags
	require.NoError(t, l.Run(func() { flags = l.Ring().SetupFlags() }))
	want := sys.SetupSingleIssuer | sys.SetupDeferTaskrun | sys.SetupTaskrunFlag
	switch {
	case plain:
		require.Zero(t, flags&want)
	case eventfdSignalsDeferredWork() != nil:
		// 6.12's eventfd loses DEFER_TASKRUN wakeups: the Core leaves it out.
		require.Zero(t, flags&sys.SetupDeferTaskrun)
	default:
		testutil.Require(t, uring.CheckSetupFlag(sys.SetupDeferTaskrun))
		require.Equal(t, want, flags&want)
	}
	fd, w := pipe(t)
	buf := make([]byte, 8)
	got := make(chan Result, 1)
	require.NoError(t, l.Go(prepRead(fd, buf), func(r Result, err error) { got <- r }))
	waitInFlight(t, l, 1)
	kicks0 := l.c.kicks.Load() // not Stats: it needs the wakeup under test
	const dos = 20
	for i := 0; i < dos; i++ {
		waitSleeping(t, l, sleepEfd) // parked on its eventfd, the read in flight
		res := make(chan error, 1)
		go func() { _, err := l.Do(context.Background(), prepNop); res <- err }()
		select {
		case err := <-res:
			require.NoError(t, err)
		case <-time.After(hangGuard): // a hang guard, not a timing check
			t.Fatalf("Do %d never woke the parked loop (sleep state %d)", i, l.c.SleepState())
		}
	}
	s := l.Stats()
	require.GreaterOrEqual(t, s.Kicks-kicks0, uint64(dos), "every Do found the loop parked and kicked its eventfd")
	require.GreaterOrEqual(t, s.Waits, uint64(dos), "every Do ended a park")
	require.Zero(t, s.Core.ParkTimeouts, "no park ended by its timeout")
	// The read's completion alone ends a park.
	waitSleeping(t, l, sleepEfd)
	kicks0 = l.c.kicks.Load()
	_, err := w.Write([]byte("hi"))
	require.NoError(t, err)
	select {
	case r := <-got:
		require.Equal(t, int32(2), r.Res)
	case <-time.After(hangGuard): // a hang guard, not a timing check
		t.Fatalf("the read's completion never woke the parked loop (sleep state %d)", l.c.SleepState())
	}
	require.Equal(t, "hi", string(buf[:2]))
	require.Equal(t, kicks0, l.c.kicks.Load(), "the completion ended the park, not a wakeup")
	s = l.Stats()
	require.Zero(t, s.Core.ParkTimeouts, "no park ended by its timeout")
	require.Zero(t, s.InFlight)
	t.Logf("kicks %d, waits %d, netpoll parks %d", s.Kicks, s.Waits, s.Core.NetParks)
}

// TestParkZeroAllocs: a Do round trip that wakes a Park loop from its
// eventfd wait (a read stays in flight) allocates nothing.
func TestParkZeroAllocs(t *testing.T) {
	l := newLoop(t, WithStrategy(Park), WithWaitTimeout(30*time.Second))
	fd, w := pipe(t)
	buf := make([]byte, 8)
	got := make(chan Result, 1)
	require.NoError(t, l.Go(prepRead(fd, buf), func(r Result, err error) { got <- r }))
	waitInFlight(t, l, 1)
	ctx := context.Background()
	do := func() {
		if _, err := l.Do(ctx, prepNop); err != nil {
			panic(err)
		}
	}
	do()
	k0 := l.Stats().Kicks
	require.Zero(t, testing.AllocsPerRun(200, do), "Do waking an eventfd wait")
	require.NotZero(t, l.Stats().Kicks-k0, "the loop must have been parked on its eventfd")
	_, err := w.Write([]byte("x"))
	require.NoError(t, err)
	<-got
}

// TestWallDo measures Do(NOP) round trips, Block against Park, alternating
// round by round in one process, with the loop idle between calls and with
// a pipe read in flight (the loop waits: Block in io_uring_enter, woken by
// MSG_RING; Park in the netpoller, woken by an eventfd write). It runs only
// when POLL_WALLDO=ROUNDS:N is set (BENCH.md has the command).
func TestWallDo(t *testing.T) {
	var rounds, n int
	if _, err := fmt.Sscanf(os.Getenv("POLL_WALLDO"), "%d:%d", &rounds, &n); err != nil {
		t.Skip("POLL_WALLDO=ROUNDS:N not set (wall-time harness, see BENCH.md)")
	}
	old := checkThread
	checkThread = false
	defer func() { checkThread = old }()
	ctx := context.Background()
	type key struct {
		st      Strategy
		waiting bool
	}
	loops := map[key]*Loop{}
	for _, st := range []Strategy{Block, Park} {
		for _, waiting := range []bool{false, true} {
			l := newLoop(t, WithStrategy(st), WithWaitTimeout(time.Minute))
			if waiting {
				fd, w := pipe(t)
				buf := make([]byte, 8)
				got := make(chan struct{}, 1)
				require.NoError(t, l.Go(prepRead(fd, buf), func(Result, error) { got <- struct{}{} }))
				waitInFlight(t, l, 1)
				t.Cleanup(func() { _, _ = w.Write([]byte{1}); <-got })
			}
			loops[key{st, waiting}] = l
		}
	}
	ns := map[key][]float64{}
	for r := 0; r < rounds; r++ {
		for _, waiting := range []bool{false, true} {
			for _, st := range []Strategy{Block, Park} {
				k := key{st, waiting}
				l := loops[k]
				t0 := time.Now()
				for i := 0; i < n; i++ {
					_, err := l.Do(ctx, prepNop)
					require.NoError(t, err)
				}
				ns[k] = append(ns[k], float64(time.Since(t0).Nanoseconds())/float64(n))
			}
		}
	}
	for _, waiting := range []bool{false, true} {
		b, p := median(ns[key{Block, waiting}]), median(ns[key{Park, waiting}])
		t.Logf("GOMAXPROCS=%d waiting=%-5v Do ns/op (median of %d rounds of %d): block %.0f park %.0f (park/block %.2fx)",
			runtime.GOMAXPROCS(0), waiting, rounds, n, b, p, p/b)
	}
}

// loopState describes a loop for a failure message: its ring's setup
// flags, the eventfd probe's answer and its counters.
func loopState(l *Loop) string {
	var flags sys.SetupFlags
	var sqf sys.SQRingFlags
	var cqReady uint32
	_ = l.Run(func() { flags, sqf, cqReady = l.Ring().SetupFlags(), l.Ring().SQFlags(), l.Ring().CQReady() })
	return fmt.Sprintf("kernel %s, setup flags %v, SQ flags %v, CQ ready %d, eventfd probe %v, sleep state %d, stats %+v",
		uring.KernelRelease(), flags, sqf, cqReady, eventfdSignalsDeferredWork(), l.c.SleepState(), l.Stats())
}
