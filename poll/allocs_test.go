//go:build linux

package poll

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZeroAllocs: the steady-state paths allocate nothing: loop-thread
// submit and dispatch (Start + handler, batches of 32 NOPs; PrepBatch +
// batch handler, the same), and a
// cross-goroutine Do with a static prep function.
func TestZeroAllocs(t *testing.T) {
	for _, st := range []Strategy{Block, Spin, IOPoll, Park} {
		t.Run(st.String(), func(t *testing.T) {
			requireNops(t, st)
			l := newLoop(t, WithStrategy(st))
			d := &benchDriver{l: l, fd: -1, ops: make([]benchOp, 32), done: make(chan struct{}, 1)}
			for i := range d.ops {
				d.ops[i].d = d
			}
			batch := d.batch // one method value, made once
			run := func() {
				d.left = 320
				if err := l.Run(batch); err != nil {
					panic(err)
				}
				<-d.done
			}
			run() // warm up: slot table, queue buffers
			require.Zero(t, testing.AllocsPerRun(50, run), "Start/dispatch")
			require.Zero(t, d.bad)
			bn := &batchNops{l: l, n: 32, done: make(chan struct{}, 1)}
			runBatch := func() {
				if err := bn.run(320); err != nil {
					panic(err)
				}
			}
			runBatch()
			require.Zero(t, testing.AllocsPerRun(50, runBatch), "PrepBatch/dispatch")
			require.Zero(t, bn.bad)
			ctx := context.Background()
			do := func() {
				if _, err := l.Do(ctx, prepNop); err != nil {
					panic(err)
				}
			}
			do()
			require.Zero(t, testing.AllocsPerRun(200, do), "Do")
		})
	}
}
