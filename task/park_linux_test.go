//go:build linux

package task

import (
	"context"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/poll"
)

// rawFd returns f's descriptor without making it blocking (File.Fd would).
func rawFd(tb testing.TB, f *os.File) int {
	tb.Helper()
	rc, err := f.SyscallConn()
	require.NoError(tb, err)
	fd := -1
	require.NoError(tb, rc.Control(func(u uintptr) { fd = int(u) }))
	return fd
}

// pingPong makes n round trips between a goroutine and a task on ex at
// GOMAXPROCS=1: the goroutine writes a byte into one pipe, the task reads
// it and writes it back into another, the goroutine reads it (netpoller).
// It returns the executor's Core counters.
func pingPong(t *testing.T, ex *Executor, n int) poll.CoreStats {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	r1, w1, err := os.Pipe()
	require.NoError(t, err)
	defer r1.Close()
	r2, w2, err := os.Pipe()
	require.NoError(t, err)
	defer r2.Close()
	rfd, wfd := rawFd(t, r1), rawFd(t, w2)
	h := SpawnOn(context.Background(), ex, func(t *T) (int, error) {
		b := make([]byte, 1)
		for n := 0; ; n++ {
			if m, err := t.Read(rfd, b, -1); err != nil || m == 0 {
				return n, err
			}
			if _, err := t.Write(wfd, b, -1); err != nil {
				return n, err
			}
		}
	})
	b := []byte{7}
	require.NoError(t, r2.SetReadDeadline(time.Now().Add(20*time.Second))) // a lost wakeup fails, not hangs
	for range n {
		_, err := w1.Write(b)
		require.NoError(t, err)
		_, err = r2.Read(b)
		require.NoError(t, err)
		require.Equal(t, byte(7), b[0])
	}
	require.NoError(t, w1.Close())
	got, err := h.Wait(context.Background())
	require.NoError(t, err)
	require.Equal(t, n, got)
	require.NoError(t, w2.Close())
	return onExec(t, ex, func() poll.CoreStats { return coreOf(ex).Stats() })
}

// An executor waiting for completions must not hold the only P: at
// GOMAXPROCS=1 it never waits in io_uring_enter (where the P stays with it
// until sysmon retakes it) but parks in the netpoller, and the round trips
// all complete. (6.12's eventfd, which stops signalling deferred work,
// made this hang: see poll's eventfd probe.)
func TestParkGOMAXPROCS1PingPong(t *testing.T) {
	requireRing(t) // the completion core\'s counters and states
	st := pingPong(t, newExec(t), 500)
	require.Zero(t, st.KernelWaits, "an executor waited in the kernel with one P")
	require.NotZero(t, st.NetParks, "the executor never parked in the netpoller")
	kernel := pingPong(t, newExec(t, WithKernelWait()), 500)
	require.Zero(t, kernel.NetParks, "WithKernelWait never parks in the netpoller")
	t.Logf("parked in Go: %+v; WithKernelWait: %+v", st, kernel)
}

// A goroutine keeps running while an executor waits again and again (a
// task sleeping in short steps) at GOMAXPROCS=1: the goroutine's steps and
// the task's sleeps interleave, and every wait of the executor is a park
// in the netpoller. The goroutine steps every millisecond: a loop of
// time.Sleep(time.Microsecond) keeps the only P through runnext (each
// sleep has expired by the time the scheduler looks, and the goroutine
// inherits the time slice), so what the netpoller readies waits until
// sysmon preempts the loop: Go alone, with a pipe read in place of the
// executor, waited 9.5 s on 6.12 under qemu TCG, and this test hung
// there once in the kernel matrix (a throwaway test showed the Go case).
func TestParkGOMAXPROCS1Counter(t *testing.T) {
	requireRing(t) // the completion core\'s counters and states
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ex := newExec(t, WithGOMAXPROCSUnchanged()) // one P, which the executor must not hold
	var steps atomic.Int64
	const sleeps = 200
	h := SpawnOn(context.Background(), ex, func(t *T) (int64, error) {
		var seen int64
		for range sleeps {
			if err := t.Sleep(50 * time.Microsecond); err != nil {
				return 0, err
			}
			seen = steps.Load()
		}
		return seen, nil
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !h.Done() {
			steps.Add(1)
			time.Sleep(time.Millisecond)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	seen, err := h.Wait(ctx)
	require.NoError(t, err)
	<-done
	require.Positive(t, seen, "the goroutine never ran while the executor slept")
	st := onExec(t, ex, func() poll.CoreStats { return coreOf(ex).Stats() })
	require.Zero(t, st.KernelWaits, "an executor waited in the kernel with one P")
	require.NotZero(t, st.NetParks)
}
