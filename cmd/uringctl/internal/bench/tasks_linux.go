//go:build linux

package bench

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/pure-uring/uring/task"
)

// The task-layer micro-benchmarks (Condy's and async_simple's): each
// runs inside one task on a fresh executor, timed inside the task so that
// the executor's start and stop are not counted, against its goroutine
// baseline timed the same way.

func emptyTask(*task.T) (struct{}, error) { return struct{}{}, nil }

// runSpawn: one task spawns N empty tasks and joins each.
func runSpawn(c *Config) ([]Point, error) {
	var out []Point
	for _, n := range orInt64s(c.N, []int64{10000, 100000, 1000000}) {
		s := spec{
			meta: Point{Workload: "spawn", Axis: "n", X: n, Unit: "ns/task", Params: Params{N: n}},
			project: []impl{{"task Spawn+Join", func() (sample, error) { return spawnTasks(n) }},
				{"task Spawn+Join fallback", func() (sample, error) { return spawnTasks(n, task.WithoutIOUring()) }}},
			baseline: impl{"go + WaitGroup", func() (sample, error) { return spawnGoroutines(n), nil }},
		}
		pts, err := c.measure(s)
		if err != nil {
			return nil, err
		}
		out = append(out, pts...)
	}
	return out, nil
}

func spawnTasks(n int64, opts ...task.Option) (sample, error) {
	var el time.Duration
	hs := make([]*task.Handle[struct{}], n)
	err := onExecutor(func(t *task.T) error {
		start := time.Now()
		for i := range hs {
			hs[i] = task.Spawn(t, emptyTask)
		}
		for _, h := range hs {
			if _, err := h.Join(t); err != nil {
				return err
			}
		}
		el = time.Since(start)
		return nil
	}, opts...)
	return nsPerOp(n, el), err
}

func spawnGoroutines(n int64) sample {
	var wg sync.WaitGroup
	start := time.Now()
	for i := int64(0); i < n; i++ {
		wg.Add(1)
		go wg.Done()
	}
	wg.Wait()
	return nsPerOp(n, time.Since(start))
}

// runSwitch: yield (a task yields N times vs a runtime.Gosched loop) and
// pingpong (two tasks on unbuffered task channels vs two goroutines on
// unbuffered chans; cost per one-way message, a switch each).
func runSwitch(c *Config) ([]Point, error) {
	var out []Point
	modes := orStrings(c.Modes, []string{"yield", "pingpong"})
	for _, mode := range modes {
		for _, n := range orInt64s(c.N, []int64{1000000}) {
			meta := Point{Workload: "switch", Mode: mode, Axis: "n", X: n, Params: Params{N: n}}
			var s spec
			switch mode {
			case "yield":
				meta.Unit = "ns/yield"
				s = spec{meta: meta,
					project:  []impl{{"task Yield", func() (sample, error) { return yieldTask(n) }}},
					baseline: impl{"runtime.Gosched", func() (sample, error) { return gosched(n), nil }},
				}
			case "pingpong":
				meta.Unit = "ns/switch"
				s = spec{meta: meta,
					project:  []impl{{"task Chan(0)", func() (sample, error) { return pingPongTasks(n) }}},
					baseline: impl{"go chan(0)", func() (sample, error) { return pingPongGo(n), nil }},
				}
			default:
				return nil, fmt.Errorf("switch: unknown --mode %q (want yield,pingpong)", mode)
			}
			pts, err := c.measure(s)
			if err != nil {
				return nil, err
			}
			out = append(out, pts...)
		}
	}
	return out, nil
}

// yieldTask: two tasks yield to each other n times in all, so every Yield
// is a real switch to the other task (a lone task's Yield returns at once:
// there is nothing else to run, and it would measure nothing).
func yieldTask(n int64) (sample, error) {
	var el time.Duration
	err := onExecutor(func(t *task.T) error {
		start := time.Now()
		hs := [2]*task.Handle[struct{}]{}
		for i := range hs {
			hs[i] = task.Spawn(t, func(t *task.T) (struct{}, error) {
				for j := int64(0); j < n/2; j++ {
					t.Yield()
				}
				return struct{}{}, nil
			})
		}
		for _, h := range hs {
			if _, err := h.Join(t); err != nil {
				return err
			}
		}
		el = time.Since(start)
		return nil
	})
	return nsPerOp(n, el), err
}

// gosched: two goroutines call runtime.Gosched n times in all, on one P,
// so that each call switches to the other goroutine.
func gosched(n int64) sample {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var wg sync.WaitGroup
	start := time.Now()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := int64(0); j < n/2; j++ {
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	return nsPerOp(n, time.Since(start))
}

func pingPongTasks(n int64) (sample, error) {
	var el time.Duration
	err := onExecutor(func(t *task.T) error {
		ping, pong := task.NewChan[int64](t, 0), task.NewChan[int64](t, 0)
		start := time.Now()
		h := task.Spawn(t, func(t *task.T) (struct{}, error) {
			for {
				v, ok, err := ping.Recv(t)
				if err != nil || !ok {
					return struct{}{}, err
				}
				if err := pong.Send(t, v); err != nil {
					return struct{}{}, err
				}
			}
		})
		for i := int64(0); i < n; i++ {
			if err := ping.Send(t, i); err != nil {
				return err
			}
			if _, _, err := pong.Recv(t); err != nil {
				return err
			}
		}
		ping.Close()
		_, err := h.Join(t)
		el = time.Since(start)
		return err
	})
	return nsPerOp(2*n, el), err
}

func pingPongGo(n int64) sample {
	ping, pong := make(chan int64), make(chan int64)
	start := time.Now()
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	for i := int64(0); i < n; i++ {
		ping <- i
		<-pong
	}
	close(ping)
	return nsPerOp(2*n, time.Since(start))
}

// runChannel: P pairs, each a sender and a receiver task on a task channel
// of capacity 1024, N messages in all (2 M at one pair by default).
func runChannel(c *Config) ([]Point, error) {
	var out []Point
	for _, p := range orInts(c.Pairs, []int{1, 2, 4, 8, 16, 32}) {
		n := int64(1000000)
		if p == 1 {
			n = 2000000
		}
		if len(c.N) > 0 {
			n = c.N[0]
		}
		per := max(n/int64(p), 1)
		execs := min(p, runtime.NumCPU()) // one executor per core, as many as pairs
		if len(c.Executors) > 0 {
			execs = min(p, c.Executors[0])
		}
		s := spec{
			meta:     Point{Workload: "channel", Axis: "pairs", X: int64(p), Unit: "ns/msg", Params: Params{Pairs: p, N: per * int64(p), Executors: execs}},
			project:  []impl{{"task Chan(1024)", func() (sample, error) { return chanTasks(p, per, execs) }}},
			baseline: impl{"go chan(1024)", func() (sample, error) { return chanGo(p, per), nil }},
		}
		pts, err := c.measure(s)
		if err != nil {
			return nil, err
		}
		out = append(out, pts...)
	}
	return out, nil
}

// chanTasks: p pairs spread over execs executors (each pair on one, as a
// thread-per-core program places them), timed from a common start to the
// moment the last executor's pairs are done, as chanGo is timed to its
// goroutines' end: the executors' start and Close (a ring's teardown and a
// GOMAXPROCS change each) stay out of the time.
func chanTasks(p int, per int64, execs int) (sample, error) {
	execs = max(min(execs, p), 1)
	ready := make(chan struct{}, execs)
	start := make(chan struct{})
	errs := make(chan error, execs)
	ends := make([]time.Time, execs)
	for e := 0; e < execs; e++ {
		go func() {
			errs <- onExecutor(func(t *task.T) error {
				ready <- struct{}{}
				<-start // the executor has nothing else to run yet: a plain wait is fine
				err := chanPairs(t, pairsOf(p, execs, e), per)
				ends[e] = time.Now()
				return err
			})
		}()
	}
	for range execs {
		<-ready
	}
	t0 := time.Now()
	close(start)
	var err error
	for range execs {
		err = errors.Join(err, <-errs)
	}
	end := t0
	for _, t := range ends {
		if t.After(end) {
			end = t
		}
	}
	return nsPerOp(int64(p)*per, end.Sub(t0)), err
}

// pairsOf is how many of p pairs executor e of execs runs.
func pairsOf(p, execs, e int) int {
	n := p / execs
	if e < p%execs {
		n++
	}
	return n
}

// chanPairs runs p sender/receiver pairs of per messages on t's executor.
func chanPairs(t *task.T, p int, per int64) error {
	hs := make([]*task.Handle[int64], 0, 2*p)
	for i := 0; i < p; i++ {
		ch := task.NewChan[int64](t, 1024)
		hs = append(hs, task.Spawn(t, func(t *task.T) (int64, error) {
			for j := int64(0); j < per; j++ {
				if err := ch.Send(t, j); err != nil {
					return 0, err
				}
			}
			ch.Close()
			return 0, nil
		}), task.Spawn(t, func(t *task.T) (int64, error) {
			var sum int64
			for {
				v, ok, err := ch.Recv(t)
				if err != nil || !ok {
					return sum, err
				}
				sum += v
			}
		}))
	}
	for _, h := range hs {
		if _, err := h.Join(t); err != nil {
			return err
		}
	}
	return nil
}

func chanGo(p int, per int64) sample {
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < p; i++ {
		ch := make(chan int64, 1024)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := int64(0); j < per; j++ {
				ch <- j
			}
			close(ch)
		}()
		go func() {
			defer wg.Done()
			var sum int64
			for v := range ch {
				sum += v
			}
			_ = sum
		}()
	}
	wg.Wait()
	return nsPerOp(int64(p)*per, time.Since(start))
}

// chain levels: each is N + await next(), as a function of the task (an
// awaited call in this design is a plain call), as a plain call, as a task
// spawned and joined per level, and as a goroutine + channel per level.

//go:noinline
func chainTask(t *task.T, n int) (int, error) {
	if n == 0 {
		return 0, nil
	}
	v, err := chainTask(t, n-1)
	return n + v, err
}

// chainPlain is the same chain from a plain goroutine: the very function
// the task runs (it never uses t), so that the two sides differ only in
// where they run. Two copies of one recursion differ by their code
// alignment: measured at 784ec40 and at 011ff5d, whichever of two such
// functions sat on a 64-byte boundary ran 1.2-1.4x faster (the ratio moved
// from 1.26x to 0.77x with no change to either function).
func chainPlain(n int) int {
	v, _ := chainTask(nil, n)
	return v
}

func chainSpawn(t *task.T, n int) (int, error) {
	if n == 0 {
		return 0, nil
	}
	v, err := task.Spawn(t, func(t *task.T) (int, error) { return chainSpawn(t, n-1) }).Join(t)
	return n + v, err
}

func chainGoroutine(n int) int {
	if n == 0 {
		return 0
	}
	ch := make(chan int)
	go func() { ch <- chainGoroutine(n - 1) }()
	return n + <-ch
}

// runChain: mode call (the chain inside one task vs plain calls) and mode
// spawn (a task per level vs a goroutine + channel per level); µs per chain.
func runChain(c *Config) ([]Point, error) {
	depth := c.Depth
	if depth == 0 {
		depth = 1000
	}
	want := depth * (depth + 1) / 2
	var out []Point
	for _, mode := range orStrings(c.Modes, []string{"call", "spawn"}) {
		k := int64(20000)
		if mode == "spawn" {
			k = 200
		}
		if len(c.N) > 0 {
			k = c.N[0]
		}
		meta := Point{Workload: "chain", Mode: mode, Axis: "depth", X: int64(depth), Unit: "µs/chain", Params: Params{Depth: depth, N: k}}
		var s spec
		switch mode {
		case "call":
			s = spec{meta: meta,
				project: []impl{{"task (awaited calls)", func() (sample, error) {
					return chainRunTask(k, want, func(t *task.T) (int, error) { return chainTask(t, depth) })
				}}},
				baseline: impl{"plain calls", func() (sample, error) { return chainRunGo(k, want, func() int { return chainPlain(depth) }) }},
			}
		case "spawn":
			s = spec{meta: meta,
				project: []impl{{"task per level", func() (sample, error) {
					return chainRunTask(k, want, func(t *task.T) (int, error) { return chainSpawn(t, depth) })
				}}},
				baseline: impl{"goroutine per level", func() (sample, error) { return chainRunGo(k, want, func() int { return chainGoroutine(depth) }) }},
			}
		default:
			return nil, fmt.Errorf("chain: unknown --mode %q (want call,spawn)", mode)
		}
		pts, err := c.measure(s)
		if err != nil {
			return nil, err
		}
		out = append(out, pts...)
	}
	return out, nil
}

func chainRunTask(k int64, want int, fn func(t *task.T) (int, error)) (sample, error) {
	var el time.Duration
	err := onExecutor(func(t *task.T) error {
		start := time.Now()
		for i := int64(0); i < k; i++ {
			v, err := fn(t)
			if err != nil {
				return err
			}
			if v != want {
				return fmt.Errorf("chain computed %d, want %d", v, want)
			}
		}
		el = time.Since(start)
		return nil
	})
	return sample{v: float64(el.Nanoseconds()) / float64(k) / 1e3}, err
}

func chainRunGo(k int64, want int, fn func() int) (sample, error) {
	start := time.Now()
	for i := int64(0); i < k; i++ {
		if v := fn(); v != want {
			return sample{}, fmt.Errorf("chain computed %d, want %d", v, want)
		}
	}
	return sample{v: float64(time.Since(start).Nanoseconds()) / float64(k) / 1e3}, nil
}

// runCollect: N tasks each running a 50-deep chain, wait for all; ms per
// collect (the mean of collectRounds collects per sample).
func runCollect(c *Config) ([]Point, error) {
	depth := c.Depth
	if depth == 0 {
		depth = 50
	}
	want := depth * (depth + 1) / 2
	var out []Point
	for _, n := range orInt64s(c.N, []int64{1000, 5000, 20000}) {
		s := spec{
			meta:     Point{Workload: "collect", Axis: "n", X: n, Unit: "ms/collect", Params: Params{N: n, Depth: depth}},
			project:  []impl{{"task Spawn+Join", func() (sample, error) { return collectTasks(n, depth, want) }}},
			baseline: impl{"go + WaitGroup", func() (sample, error) { return collectGo(n, depth, want) }},
		}
		pts, err := c.measure(s)
		if err != nil {
			return nil, err
		}
		out = append(out, pts...)
	}
	return out, nil
}

const collectRounds = 5

func collectTasks(n int64, depth, want int) (sample, error) {
	var el time.Duration
	hs := make([]*task.Handle[int], n)
	body := func(t *task.T) (int, error) { return chainTask(t, depth) }
	err := onExecutor(func(t *task.T) error {
		start := time.Now()
		for r := 0; r < collectRounds; r++ {
			for i := range hs {
				hs[i] = task.Spawn(t, body)
			}
			for _, h := range hs {
				v, err := h.Join(t)
				if err != nil {
					return err
				}
				if v != want {
					return fmt.Errorf("chain computed %d, want %d", v, want)
				}
			}
		}
		el = time.Since(start)
		return nil
	})
	return sample{v: float64(el.Nanoseconds()) / collectRounds / 1e6}, err
}

func collectGo(n int64, depth, want int) (sample, error) {
	var bad sync.Once
	var err error
	start := time.Now()
	for r := 0; r < collectRounds; r++ {
		var wg sync.WaitGroup
		for i := int64(0); i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if v := chainPlain(depth); v != want {
					bad.Do(func() { err = fmt.Errorf("chain computed %d, want %d", v, want) })
				}
			}()
		}
		wg.Wait()
	}
	return sample{v: float64(time.Since(start).Nanoseconds()) / collectRounds / 1e6}, err
}

// runOverhead: QD tasks awaiting NOPs (one task: the plain "awaited NOP")
// vs the raw Ring submitting the same NOPs in batches of QD.
func runOverhead(c *Config) ([]Point, error) {
	var out []Point
	d := c.dur()
	for _, qd := range orInts(c.QD, []int{1, 8, 32}) {
		s := spec{
			meta:     Point{Workload: "overhead", Axis: "qd", X: int64(qd), Unit: "ns/op", Params: Params{QD: qd, Duration: d.String()}},
			project:  []impl{{"task Nop", func() (sample, error) { return nopTasks(qd, d) }}},
			baseline: impl{"uring.Ring", func() (sample, error) { return nopRing(qd, d) }},
		}
		pts, err := c.measure(s)
		if err != nil {
			return nil, err
		}
		out = append(out, pts...)
	}
	return out, nil
}
