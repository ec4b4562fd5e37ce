//go:build linux

package reg_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
)

// StartIOWorkers leaves the calling thread with its io-wq workers, one
// bounded and one unbounded (per NUMA node). The test needs a thread with
// none yet: each attempt's goroutine returns locked, so its thread ends,
// until one lands on a thread that never used io-wq.
func TestStartIOWorkers(t *testing.T) {
	type outcome struct {
		tid, before, after int
		err                error
	}
	for attempt := 0; attempt < 100; attempt++ {
		done := make(chan outcome, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the attempt
			o := outcome{tid: unix.Gettid()}
			o.before = testutil.IOWorkers(o.tid)
			r, err := uring.New(4)
			if err != nil {
				o.err = err
				done <- o
				return
			}
			defer r.Close()
			o.err = reg.StartIOWorkers(r)
			o.after = testutil.IOWorkers(o.tid)
			if o.err == nil {
				o.err = reg.StartIOWorkers(r) // again: the workers are there
			}
			done <- o
		}()
		o := <-done
		require.NoError(t, o.err)
		require.GreaterOrEqual(t, o.after, 2, "thread %d: one bounded and one unbounded worker", o.tid)
		if o.before == 0 {
			return // they were started by StartIOWorkers
		}
	}
	t.Fatal("no attempt ran on a thread without io-wq workers")
}

func TestStartIOWorkersArgs(t *testing.T) {
	var ae *reg.ArgError
	err := reg.StartIOWorkers(nil)
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "r", ae.Arg)

	r := newRing(t, 4)
	s, err := r.GetSQE()
	require.NoError(t, err)
	sqe.Nop(s)
	err = reg.StartIOWorkers(r)
	require.ErrorAs(t, err, &ae, "an SQE queued")
	require.Equal(t, "r", ae.Arg)
	submit(t, r)
	_ = wait(t, r)
}
