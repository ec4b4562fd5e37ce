//go:build linux

package poll

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

// TestCountOps runs exactly N NOPs in batches through the raw Ring or a
// loop, for instruction counting under callgrind and syscall counting under
// strace (BENCH.md has the commands). It runs only when POLL_COUNT is set:
// POLL_COUNT=MODE:BATCH:N, MODE = raw-block, raw-sqpoll, raw-iopoll, a
// strategy name, or batch-STRATEGY (through PrepBatch). Both sides do warmOps warm-up NOPs first, so a run with N=0
// is the baseline to subtract.
func TestCountOps(t *testing.T) {
	spec := os.Getenv("POLL_COUNT")
	if spec == "" {
		t.Skip("POLL_COUNT not set (instruction-count harness, see BENCH.md)")
	}
	f := strings.Split(spec, ":")
	require.Len(t, f, 3, "POLL_COUNT=MODE:BATCH:N")
	batch, err := strconv.Atoi(f[1])
	require.NoError(t, err)
	n, err := strconv.Atoi(f[2])
	require.NoError(t, err)
	old := checkThread
	checkThread = false
	defer func() { checkThread = old }()
	if raw, ok := strings.CutPrefix(f[0], "raw-"); ok {
		st, err := parseStrategy(raw)
		require.NoError(t, err)
		require.NoError(t, rawCount(-1, batch, st, n))
		return
	}
	name, batched := strings.CutPrefix(f[0], "batch-")
	st, err := parseStrategy(name)
	require.NoError(t, err)
	l := newLoop(t, WithStrategy(st))
	if batched {
		require.NoError(t, batchCount(l, batch, n))
		return
	}
	require.NoError(t, loopCount(l, -1, batch, n))
}

// batchCount is loopCount through PrepBatch: one batch per enter.
func batchCount(l *Loop, batch, n int) error {
	d := &batchNops{l: l, n: batch, done: make(chan struct{}, 1), markAt: n}
	if n == 0 {
		d.markAt = -1
	}
	if err := d.run(warmOps + n); err != nil {
		return err
	}
	if d.bad != 0 {
		return fmt.Errorf("%d bad results", d.bad)
	}
	return nil
}

// countMark brackets the measured operations, on the thread doing them:
// callgrind --dump-before=*countMark starts a new profile part there.
//
//go:noinline
func countMark() { markCount++ }

var markCount int

// warmOps divides every batch size.
const warmOps = 1024

func parseStrategy(s string) (Strategy, error) {
	for _, st := range Strategies {
		if st.String() == s {
			return st, nil
		}
	}
	return 0, fmt.Errorf("unknown strategy %q", s)
}

// loopCount runs warmOps warm-up operations then n, batch at a time, through
// l, in one chain of handlers on the loop thread (countMark before and
// after the n).
func loopCount(l *Loop, fd, batch, n int) error {
	d := &benchDriver{l: l, fd: fd, ops: make([]benchOp, batch), done: make(chan struct{}, 1)}
	for i := range d.ops {
		d.ops[i].d = d
	}
	d.left, d.markAt = warmOps+n, n
	if n == 0 {
		d.markAt = -1
	}
	if err := l.Run(d.batch); err != nil {
		return err
	}
	<-d.done
	if d.bad != 0 {
		return fmt.Errorf("%d bad results", d.bad)
	}
	return nil
}

// rawCount does the same on the raw Ring, on a locked thread, with the
// ring options of a loop of strategy st.
func rawCount(fd, batch int, st Strategy, n int) error {
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r, err := rawRing(WithStrategy(st))
		if err != nil {
			done <- err
			return
		}
		defer r.Close()
		cqes := make([]sys.CQE, 256)
		if err := rawOps(r, fd, batch, warmOps, cqes); err != nil {
			done <- err
			return
		}
		countMark()
		err = rawOps(r, fd, batch, n, cqes)
		countMark()
		done <- err
	}()
	return <-done
}

// rawOps: n NOPs (fd < 0) or 4 KiB reads, batch per SubmitAndWait, each
// batch reaped before the next.
func rawOps(r *uring.Ring, fd, batch, n int, cqes []sys.CQE) error {
	var buf [4096]byte
	var off int64
	for left := n; left > 0; {
		k := min(batch, left)
		for i := 0; i < k; i++ {
			s, err := r.GetSQE()
			if err != nil {
				return err
			}
			if fd < 0 {
				*s = sys.SQE{Opcode: sys.OpNop, Fd: -1, UserData: uint64(i)}
			} else {
				*s = sys.SQE{Opcode: sys.OpRead, Fd: int32(fd), Addr: sys.SliceAddr(buf[:]), Len: 4096, Off: uint64(off), UserData: uint64(i)}
				off = (off + 4096) % benchFileSize
			}
		}
		if _, err := r.SubmitAndWait(uint32(k)); err != nil {
			return err
		}
		for got := 0; got < k; {
			m := r.Reap(cqes)
			for _, c := range cqes[:m] {
				if c.Res < 0 {
					return fmt.Errorf("res %d", c.Res)
				}
			}
			got += m
		}
		left -= k
	}
	return nil
}

// TestWallNop measures wall time per NOP, raw Ring against each loop, in
// one process, alternating raw and loop runs round after round, and logs
// the medians and ratios (loop / raw of the same round). It runs only when
// POLL_WALL=ROUNDS:N is set (BENCH.md has the command); POLL_WALL_MODES
// picks the strategies (default block,spin,hybrid,iopoll).
func TestWallNop(t *testing.T) {
	spec := os.Getenv("POLL_WALL")
	if spec == "" {
		t.Skip("POLL_WALL not set (wall-time harness, see BENCH.md)")
	}
	f := strings.Split(spec, ":")
	require.Len(t, f, 2, "POLL_WALL=ROUNDS:N")
	rounds, err := strconv.Atoi(f[0])
	require.NoError(t, err)
	n, err := strconv.Atoi(f[1])
	require.NoError(t, err)
	modes := "block,spin,hybrid,iopoll"
	if m := os.Getenv("POLL_WALL_MODES"); m != "" {
		modes = m
	}
	old := checkThread
	checkThread = false
	defer func() { checkThread = old }()

	type point struct {
		st    Strategy
		batch int
	}
	var sts []Strategy
	for _, m := range strings.Split(modes, ",") {
		st, err := parseStrategy(m)
		require.NoError(t, err)
		sts = append(sts, st)
	}
	loops := map[Strategy]*Loop{}
	raws := map[Strategy]*rawRunner{}
	for _, st := range sts {
		loops[st] = newLoop(t, WithStrategy(st))
		rs := rawStrategy(st)
		if raws[rs] == nil {
			r, err := newRawRunner(rs)
			require.NoError(t, err)
			t.Cleanup(r.close)
			raws[rs] = r
		}
	}
	raw := map[point][]float64{}
	ratio := map[point][]float64{}
	lp := map[point][]float64{}
	for round := 0; round < rounds; round++ {
		for _, batch := range batches {
			for _, st := range sts {
				p := point{st, batch}
				r := raws[rawStrategy(st)]
				rawNs, err := r.run(batch, n)
				require.NoError(t, err)
				t0 := time.Now()
				require.NoError(t, loopCount(loops[st], -1, batch, n))
				loopNs := float64(time.Since(t0).Nanoseconds()) / float64(n+warmOps)
				raw[p] = append(raw[p], rawNs)
				lp[p] = append(lp[p], loopNs)
				ratio[p] = append(ratio[p], loopNs/rawNs)
			}
		}
	}
	t.Logf("median of %d rounds, %d NOPs per run (ns/op: raw, loop, median of loop/raw ratios)", rounds, n)
	for _, st := range sts {
		line := fmt.Sprintf("%-8v", st)
		for _, batch := range batches {
			p := point{st, batch}
			line += fmt.Sprintf(" | b%d %5.0f %5.0f %.2fx", batch, median(raw[p]), median(lp[p]), median(ratio[p]))
		}
		t.Log(line)
	}
}

// rawStrategy is the strategy whose ring options a raw baseline uses for
// a loop of strategy st.
func rawStrategy(st Strategy) Strategy {
	switch st {
	case IOPoll, HybridIOPoll, SQPoll:
		return st
	}
	return Block
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// rawRunner owns a raw Ring on a locked thread and runs NOP batches on it.
type rawRunner struct {
	req  chan [2]int
	resp chan rawResult
}

type rawResult struct {
	ns  float64
	err error
}

func newRawRunner(st Strategy) (*rawRunner, error) {
	rr := &rawRunner{req: make(chan [2]int), resp: make(chan rawResult)}
	errc := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r, err := rawRing(WithStrategy(st))
		errc <- err
		if err != nil {
			return
		}
		defer r.Close()
		cqes := make([]sys.CQE, 256)
		for q := range rr.req {
			t0 := time.Now()
			err := rawOps(r, -1, q[0], warmOps+q[1], cqes)
			rr.resp <- rawResult{float64(time.Since(t0).Nanoseconds()) / float64(warmOps+q[1]), err}
		}
	}()
	return rr, <-errc
}

func (rr *rawRunner) run(batch, n int) (float64, error) {
	rr.req <- [2]int{batch, n}
	r := <-rr.resp
	return r.ns, r.err
}

func (rr *rawRunner) close() { close(rr.req) }
