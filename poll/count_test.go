//go:build linux

package poll

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

// TestCountOps runs exactly N NOPs in batches through the raw Ring or a
// loop, for instruction counting under callgrind and syscall counting under
// strace (BENCH.md has the commands). It runs only when POLL_COUNT is set:
// POLL_COUNT=MODE:BATCH:N, MODE = raw-block, raw-sqpoll, raw-iopoll or a
// strategy name. Both sides do warmOps warm-up NOPs first, so a run with N=0
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
	st, err := parseStrategy(f[0])
	require.NoError(t, err)
	l := newLoop(t, Config{Strategy: st})
	require.NoError(t, loopCount(l, -1, batch, n))
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
		c := Config{Strategy: st}
		if err := c.setDefaults(); err != nil {
			done <- err
			return
		}
		r, err := uring.New(c.Entries, c.ringOptions()...)
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
