//go:build linux

package bench

import (
	"errors"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
)

// runNop: NOPs in batches of B per enter, reaped each batch. The baseline
// is the raw Ring (the floor the layers above it are held to); the C
// liburing program is a peer when gcc and liburing are installed.
func runNop(c *Config) ([]Point, error) {
	var out []Point
	for _, b := range orInts(c.QD, []int{1, 8, 32, 128}) {
		if b > 4096 {
			return nil, errors.New("nop: --qd (batch) must be at most 4096")
		}
		d := c.dur()
		s := spec{
			meta: Point{Workload: "nop", Axis: "batch", X: int64(b), Unit: "ns/op",
				Params: Params{Batch: b, Duration: d.String()}},
			project: []impl{
				{"poll.Loop", func() (sample, error) { return nopLoop(b, d, true) }},
				{"poll.Loop (Prep per op)", func() (sample, error) { return nopLoop(b, d, false) }},
				{"task (B tasks)", func() (sample, error) { return nopTasks(b, d) }},
			},
			baseline: impl{"uring.Ring", func() (sample, error) { return nopRing(b, d) }},
		}
		if !c.NoPeers {
			if bin, err := cNopProgram(); err == nil {
				s.peers = append(s.peers, impl{"liburing (C)", func() (sample, error) { return runCNop(bin, b, d) }})
			} else {
				c.logf("bench: nop: C liburing peer skipped: %v", err)
			}
		}
		pts, err := c.measure(s)
		if err != nil {
			return nil, err
		}
		out = append(out, pts...)
	}
	return out, nil
}

func ringEntries(b int) uint32 {
	n := uint32(8)
	for n < uint32(b) {
		n *= 2
	}
	return n
}

func nopRing(b int, d time.Duration) (sample, error) {
	r, err := uring.New(ringEntries(b))
	if err != nil {
		return sample{}, err
	}
	defer r.Close()
	chunk := max(1, 1024/b)
	ops, el, err := timed(d, func() (int, error) {
		for k := 0; k < chunk; k++ {
			// The batch form of the raw ring: GetSQEs (one check and one
			// clear per batch), then the CQEs read in place (PeekBatch)
			// and released at once (Advance), as liburing's for_each_cqe
			// and cq_advance.
			for got := 0; got < b; {
				batch, err := r.GetSQEs(uint32(b - got))
				if err != nil {
					return k * b, err
				}
				for i := range batch {
					sqe.Nop(&batch[i])
				}
				got += len(batch)
			}
			if _, err := r.SubmitAndWait(uint32(b)); err != nil {
				return k * b, err
			}
			for got := 0; got < b; {
				cs := r.PeekBatch()
				got += len(cs)
				r.Advance(uint32(len(cs)))
			}
		}
		return chunk * b, nil
	})
	return nsPerOp(ops, el), err
}

// nopDriver keeps one batch of NOPs in flight on a poll.Loop: the last CQE
// of a batch preps the next, until the time is up. batched: the batch is
// prepared with PrepBatch (the shape of the raw Ring's GetSQEs loop: one
// slot per PrepBatch, the CQEs to one handler with their index; batches
// above poll.MaxBatch take several calls), else with one Prep per NOP.
type nopDriver struct {
	l        *poll.Loop
	b, left  int
	batched  bool
	ops      int64
	deadline time.Time
	err      error
	done     chan struct{}
}

func prepNop(s *sys.SQE) error { sqe.Nop(s); return nil }

func prepNopRun(_ int, run []sys.SQE) error {
	for i := range run {
		sqe.Nop(&run[i])
	}
	return nil
}

func (n *nopDriver) batch() {
	n.left = n.b
	var err error
	for i := 0; i < n.b && err == nil; {
		if n.batched {
			k := min(n.b-i, poll.MaxBatch)
			_, _, err = n.l.PrepBatch(n, k, prepNopRun)
			i += k
		} else {
			_, err = n.l.Prep(n, prepNop)
			i++
		}
	}
	if err != nil {
		n.err = err
		close(n.done)
	}
}

func (n *nopDriver) Handle(*sys.CQE) { n.completed() }

func (n *nopDriver) HandleBatch(int, *sys.CQE) { n.completed() }

func (n *nopDriver) completed() {
	n.ops++
	if n.left--; n.left > 0 {
		return
	}
	if n.ops&1023 < int64(n.b) && time.Now().After(n.deadline) {
		close(n.done)
		return
	}
	n.batch()
}

func nopLoop(b int, d time.Duration, batched bool) (sample, error) {
	l, err := poll.New(poll.WithEntries(ringEntries(b)))
	if err != nil {
		return sample{}, err
	}
	defer l.Close()
	n := &nopDriver{l: l, b: b, batched: batched, done: make(chan struct{})}
	start := time.Now()
	n.deadline = start.Add(d)
	if err := l.Run(n.batch); err != nil {
		return sample{}, err
	}
	<-n.done
	el := time.Since(start)
	if n.err != nil {
		return sample{}, n.err
	}
	return nsPerOp(n.ops, el), nil
}

// nopTasks: b tasks each awaiting NOPs in a loop; the executor submits
// what they queued in one enter, so a batch is b SQEs.
func nopTasks(b int, d time.Duration) (sample, error) {
	var ops int64
	var el time.Duration
	err := onExecutor(func(t *task.T) error {
		start := time.Now()
		deadline := start.Add(d)
		hs := make([]*task.Handle[int64], b)
		for i := range hs {
			hs[i] = task.Spawn(t, func(t *task.T) (int64, error) {
				var n int64
				for {
					for k := 0; k < 256; k++ {
						if err := t.Nop(); err != nil {
							return n, err
						}
					}
					n += 256
					if time.Now().After(deadline) {
						return n, nil
					}
				}
			})
		}
		for _, h := range hs {
			n, err := h.Join(t)
			if err != nil {
				return err
			}
			ops += n
		}
		el = time.Since(start)
		return nil
	}, task.WithEntries(ringEntries(b)))
	return nsPerOp(ops, el), err
}
