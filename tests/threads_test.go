//go:build linux

package tests

import (
	"fmt"
	"github.com/pure-uring/uring/tests/ringtest"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// The kernel's rule behind the raw Ring's documentation: a request belongs
// to the thread that submitted it, and when that thread exits, the kernel
// cancels it (on every kernel: 5.10, 6.1, 6.12, 6.18). A Go thread exits
// when a goroutine returns while locked to it.
func TestThreadExitCancelsItsRequests(t *testing.T) {
	rd, wr := testutil.Pipe(t)
	r := ringtest.New(t, 4)
	buf := make([]byte, 8)
	var pin runtime.Pinner
	pin.Pin(&buf[0])
	defer pin.Unpin() // after the CQE below
	type submitted struct {
		tid int
		err error
	}
	done := make(chan submitted, 1)
	release := make(chan struct{})
	defer close(release)
	submitAndExit := func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if unix.Gettid() == unix.Getpid() {
			// Go never ends the main thread (it parks it instead): hold it
			// until the test ends, so that the caller's next try runs on
			// another thread.
			done <- submitted{tid: -1}
			<-release
			runtime.UnlockOSThread()
			return
		}
		s, err := r.GetSQE()
		if err == nil {
			err = sqe.Read(s, rd, buf, -1)
			sqe.SetUserData(s, 1)
		}
		if err == nil {
			_, err = r.Submit()
		}
		done <- submitted{unix.Gettid(), err}
	}
	go submitAndExit()
	sub := <-done
	if sub.tid < 0 {
		go submitAndExit() // the main thread is held: another one
		sub = <-done
	}
	require.NoError(t, sub.err)
	for deadline := time.Now().Add(time.Minute); testutil.ThreadAlive(sub.tid); time.Sleep(time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "thread %d never exited", sub.tid)
	}
	_, err := unix.Write(wr, []byte("x"))
	require.NoError(t, err)
	c, err := r.WaitCQETimeout(time.Minute)
	require.NoError(t, err)
	require.Equal(t, uint64(1), c.UserData)
	require.Equal(t, -int32(unix.ECANCELED), c.Res, "the read of a thread that exited")
	r.CQESeen(c)
}

// The kernel cancels requests waiting for a thread's first io-wq worker
// when a signal to that thread keeps the worker from starting (four times);
// reg.StartIOWorkers starts the workers first, so the requests that follow
// run. Each round is a new thread (the goroutine returns locked, with
// nothing in flight) under a storm of SIGURG, Go's own preemption signal:
// without StartIOWorkers, rounds fail at once on 5.10 and 6.1 (more than
// half of them, where every pipe write goes to io-wq).
func TestFirstIOWorkerUnderSignals(t *testing.T) {
	const rounds = 48
	var failed []string
	for round := 0; round < rounds; round++ {
		errc := make(chan error, 1)
		var res [2]int32
		go func() {
			runtime.LockOSThread() // never unlocked: the next round gets another thread
			errc <- firstIOWorkRound(&res)
		}()
		var err error
		waitFor(t, stallBound, "a round", func() { err = <-errc })
		if err != nil || res != [2]int32{1, 1} {
			failed = append(failed, fmt.Sprintf("round %d: %v, results of the write and the read %v", round, err, res))
		}
	}
	require.Empty(t, failed, "%d of %d rounds failed", len(failed), rounds)
}

// firstIOWorkRound makes a ring on the calling (locked) thread, starts its
// io-wq workers under a signal storm, then writes a byte to a pipe and
// reads it back through io-wq (IOSQE_ASYNC), still under the storm.
func firstIOWorkRound(res *[2]int32) error {
	stop := testutil.SignalStorm(unix.Gettid())
	defer stop()
	r, err := uring.New(4)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := reg.StartIOWorkers(r); err != nil {
		return err
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return err
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	out, in := []byte("x"), make([]byte, 1)
	var pin runtime.Pinner
	pin.Pin(&out[0])
	pin.Pin(&in[0])
	defer pin.Unpin()
	for i, prep := range []func(s *sys.SQE) error{
		func(s *sys.SQE) error { return sqe.Write(s, p[1], out, -1) },
		func(s *sys.SQE) error { return sqe.Read(s, p[0], in, -1) },
	} {
		s, err := r.GetSQE()
		if err != nil {
			return err
		}
		if err := prep(s); err != nil {
			return err
		}
		sqe.SetAsync(s)
		sqe.SetUserData(s, uint64(i))
		if _, err := r.SubmitAndWait(1); err != nil {
			return err
		}
		c, err := r.WaitCQE()
		if err != nil {
			return err
		}
		res[c.UserData] = c.Res
		r.CQESeen(c)
		if res[i] != 1 {
			return nil // a lost write: the read would wait for ever
		}
	}
	return nil
}
