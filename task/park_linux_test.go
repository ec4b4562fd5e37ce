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

// pingPong counts round trips in d between a goroutine and a task on ex at
// GOMAXPROCS=1: the goroutine writes a byte into one pipe, the task reads
// it and writes it back into another, the goroutine reads it (netpoller).
func pingPong(t *testing.T, ex *Executor, d time.Duration) int {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	r1, w1, err := os.Pipe()
	require.NoError(t, err)
	defer r1.Close()
	r2, w2, err := os.Pipe()
	require.NoError(t, err)
	defer r2.Close()
	rfd, wfd := rawFd(t, r1), rawFd(t, w2)
	h := SpawnOn(ex, context.Background(), func(t *T) (int, error) {
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
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); n++ {
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
	return n
}

// An executor waiting for completions must not hold the only P: a
// goroutine's pipe write wakes the task at once, and the task's reply
// wakes the goroutine at once.
func TestParkGOMAXPROCS1PingPong(t *testing.T) {
	n := pingPong(t, newExec(t), 100*time.Millisecond)
	kernel := pingPong(t, newExec(t, WithKernelWait()), 100*time.Millisecond)
	t.Logf("round trips in 100ms at GOMAXPROCS=1: parked in Go %d, blocked in the kernel %d", n, kernel)
	// An executor that kept the only P (spinning, or blocked where the
	// runtime cannot retake it) would let the goroutine run once per 10 ms
	// preemption slice: about 10 round trips. A parked one allows hundreds
	// even on a loaded machine; the floor sits well between.
	require.Greater(t, n, 50, "an executor waiting for completions holds the only P (blocked in the kernel: %d)", kernel)
}

// A goroutine keeps running while an executor waits again and again (a
// task sleeping in short steps) at GOMAXPROCS=1.
func TestParkGOMAXPROCS1Counter(t *testing.T) {
	count := func(ex *Executor) int64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		var stop atomic.Bool
		h := SpawnOn(ex, context.Background(), func(t *T) (int, error) {
			n := 0
			for ; !stop.Load(); n++ {
				if err := t.Sleep(50 * time.Microsecond); err != nil {
					return n, err
				}
			}
			return n, nil
		})
		var c atomic.Int64
		done := make(chan struct{})
		go func() {
			defer close(done)
			for !stop.Load() {
				c.Add(1)
				time.Sleep(time.Microsecond)
			}
		}()
		time.Sleep(100 * time.Millisecond)
		stop.Store(true)
		<-done
		_, err := h.Wait(context.Background())
		require.NoError(t, err)
		return c.Load()
	}
	n := count(newExec(t))
	kernel := count(newExec(t, WithKernelWait()))
	t.Logf("goroutine sleeps in 100ms at GOMAXPROCS=1: parked in Go %d, blocked in the kernel %d", n, kernel)
	require.Greater(t, n, int64(50), "the goroutine ran about once per preemption slice: the executor holds the only P")
}
