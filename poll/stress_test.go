//go:build linux

package poll

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

// driver runs total NOPs from the loop thread in batches of random size
// (1..64), each batch started when the previous one has fully completed,
// and records how often each op's handler ran.
type driver struct {
	l           *Loop
	ops         [64]stressOp
	seen        []uint8
	next        int
	outstanding int
	rng         *rand.Rand
	done        chan struct{}
	err         error // first problem seen on the loop thread
}

type stressOp struct {
	d     *driver
	id    int
	armed bool
}

func (o *stressOp) Prep(s *sys.SQE) error { return prepNop(s) }

func (o *stressOp) Handle(c *sys.CQE) {
	d := o.d
	switch {
	case !o.armed:
		d.fail(fmt.Errorf("op %d: CQE delivered to a handler not in flight", o.id))
	case c.Res != 0:
		d.fail(fmt.Errorf("op %d: res %d", o.id, c.Res))
	}
	o.armed = false
	d.seen[o.id]++
	d.outstanding--
	if d.outstanding == 0 {
		d.batch()
	}
}

func (d *driver) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func newDriver(l *Loop, total int, seed uint64) *driver {
	d := &driver{l: l, seen: make([]uint8, total), rng: rand.New(rand.NewPCG(seed, 1)), done: make(chan struct{})}
	for i := range d.ops {
		d.ops[i].d = d
	}
	return d
}

func (d *driver) batch() {
	if d.next >= len(d.seen) || d.err != nil {
		close(d.done)
		return
	}
	k := min(1+d.rng.IntN(len(d.ops)), len(d.seen)-d.next)
	for i := 0; i < k; i++ {
		o := &d.ops[i]
		o.id, o.armed = d.next, true
		d.next++
		if _, err := d.l.Start(o); err != nil {
			d.fail(fmt.Errorf("Start op %d: %w", o.id, err))
			close(d.done)
			return
		}
		d.outstanding++
	}
}

func stressCount() int {
	if testing.Short() {
		return 100_000
	}
	return 1_000_000
}

// TestStressExactlyOnce: every strategy delivers exactly one result per op
// under a NOP stress with random batch sizes.
func TestStressExactlyOnce(t *testing.T) {
	for _, st := range Strategies {
		t.Run(st.String(), func(t *testing.T) {
			requireNops(t, st)
			l := newLoop(t, WithStrategy(st))
			total := stressCount()
			if st == SQPoll {
				total /= 4 // every batch waits on the SQ thread's turn on 2 shared cores
			}
			d := newDriver(l, total, uint64(st)+7)
			t0 := time.Now()
			require.NoError(t, l.Run(d.batch))
			select {
			case <-d.done:
			case <-time.After(60 * time.Second):
				t.Fatalf("stuck after %d of %d ops", d.next, total)
			}
			require.NoError(t, d.err)
			for i, n := range d.seen {
				if n != 1 {
					t.Fatalf("op %d delivered %d times", i, n)
				}
			}
			s := l.Stats()
			require.Equal(t, uint64(total), s.Completed)
			require.Equal(t, uint64(0), s.Stale)
			require.Equal(t, 0, s.InFlight)
			t.Logf("%d ops in %v (%.0f ns/op); enters %d, cqes/enter %.1f, spin %v, block %v",
				total, time.Since(t0), float64(time.Since(t0).Nanoseconds())/float64(total),
				s.Enters, s.CQEsPerEnter, time.Duration(s.SpinNanos), time.Duration(s.BlockNanos))
		})
	}
}

// TestConcurrentDo: 64 goroutines call Do at once on every strategy; on the
// SINGLE_ISSUER|DEFER_TASKRUN rings this proves that foreign goroutines
// never touch the ring (the kernel would answer EEXIST, and the thread
// check in newLoop's cleanup would count it).
func TestConcurrentDo(t *testing.T) {
	per := 2000
	if testing.Short() {
		per = 300
	}
	for _, st := range Strategies {
		t.Run(st.String(), func(t *testing.T) {
			requireNops(t, st)
			l := newLoop(t, WithStrategy(st), WithEntries(32))
			var wg sync.WaitGroup
			var okCount atomic.Int64
			errs := make(chan error, 64)
			for g := 0; g < 64; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < per; i++ {
						res, err := l.Do(context.Background(), prepNop)
						if err != nil || res.Res != 0 {
							errs <- fmt.Errorf("Do: res %d err %v", res.Res, err)
							return
						}
						okCount.Add(1)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			require.Equal(t, int64(64*per), okCount.Load())
			s := l.Stats()
			require.Equal(t, uint64(64*per), s.Completed)
			require.Equal(t, int64(0), s.ThreadViolation)
			t.Logf("cqes/enter %.1f, kicks %d, parks %d", s.CQEsPerEnter, s.Kicks, s.Parks)
		})
	}
}

// TestOverflowBurst: a small CQ and a burst of thousands of Go requests:
// the kernel overflows, the loop flushes, nothing is lost.
func TestOverflowBurst(t *testing.T) {
	const n = 5000
	for _, st := range Strategies {
		t.Run(st.String(), func(t *testing.T) {
			requireNops(t, st)
			l := newLoop(t, WithStrategy(st), WithEntries(8), WithCQEntries(8))
			seen := make([]atomic.Int32, n)
			var wg sync.WaitGroup
			wg.Add(n)
			block := make(chan struct{})
			// Hold the loop inside a Run while the burst queues up, so that it
			// takes all of it in one round.
			go func() { _ = l.Run(func() { <-block }) }()
			for i := 0; i < n; i++ {
				require.NoError(t, l.Go(prepNop, func(r Result, err error) {
					if err == nil && r.Res == 0 {
						seen[i].Add(1)
					}
					wg.Done()
				}))
			}
			close(block)
			wg.Wait()
			for i := range seen {
				require.Equal(t, int32(1), seen[i].Load(), "op %d", i)
			}
			s := l.Stats()
			require.Equal(t, uint64(n), s.Completed)
			if st != SQPoll {
				require.NotZero(t, s.OverflowFlushes, "a burst of %d on a CQ of 8 must overflow", n)
			}
			t.Logf("overflow flushes %d, busy %d", s.OverflowFlushes, s.Busy)
		})
	}
}
