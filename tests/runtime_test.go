//go:build linux

package tests

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestCancelledAcceptOrOpenClosesFd: an accept racing its cancellation
// with a connection arriving, and an open of a FIFO cancelled while it
// blocks and completed by a writer: when the op still produced an fd, the
// executor closes it; the task sees its context's error; the process fd
// count comes back to where it was.
func TestCancelledAcceptOrOpenClosesFd(t *testing.T) {
	t.Run("accept", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		lf, err := ln.(*net.TCPListener).File()
		require.NoError(t, err)
		defer lf.Close()
		lfd := int(lf.Fd())
		addr := ln.Addr().String()
		ex, err := task.NewExecutor()
		require.NoError(t, err)
		closeAtEnd(t, "Executor", ex.Close)
		base := fdCount(t)
		rounds := scale(300, 100, 5000)
		var accepted, cancelled int
		// Rounds no connection comes to: the accept waits (in the kernel,
		// or not started yet) when its context ends, so it is cancelled
		// whatever the scheduling. The racy rounds below may all go either
		// way: on loopback a dial mostly beats the cancellation's trip to
		// the executor (about one racy round in ten is cancelled here).
		for i := 0; i < 3; i++ {
			ctx, cancel := context.WithCancel(context.Background())
			h := task.SpawnOn(ctx, ex, func(tk *task.T) (int, error) {
				fd, _, err := tk.Accept(lfd, 0)
				return fd, err
			})
			time.Sleep(time.Millisecond)
			cancel()
			wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err := h.Wait(wctx)
			wcancel()
			require.ErrorIs(t, err, context.Canceled, "round %d, no connection", i)
			cancelled++
		}
		rng := rand.New(rand.NewPCG(5, 6))
		for i := 0; i < rounds; i++ {
			ctx, cancel := context.WithCancel(context.Background())
			h := task.SpawnOn(ctx, ex, func(tk *task.T) (int, error) {
				fd, _, err := tk.Accept(lfd, 0)
				return fd, err
			})
			time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
			var c net.Conn
			if rng.IntN(2) == 0 {
				cancel()
				c, err = net.Dial("tcp", addr)
			} else {
				c, err = net.Dial("tcp", addr)
				cancel()
			}
			require.NoError(t, err)
			wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
			fd, err := h.Wait(wctx)
			wcancel()
			switch {
			case err == nil:
				accepted++
				require.NoError(t, unix.Close(fd))
			case errors.Is(err, context.Canceled):
				cancelled++
			default:
				t.Fatalf("round %d: %v", i, err)
			}
			c.Close()
		}
		// Connections queued behind cancelled accepts: take them off.
		_, err = runTask(t, ex, opBound, func(tk *task.T) (int, error) {
			if err := unix.SetNonblock(lfd, true); err != nil {
				return 0, err
			}
			for {
				fd, _, err := unix.Accept4(lfd, unix.SOCK_CLOEXEC)
				if err != nil {
					return 0, nil
				}
				unix.Close(fd)
			}
		})
		require.NoError(t, err)
		t.Logf("%d racy rounds and 3 without a connection: %d accepted, %d cancelled", rounds, accepted, cancelled)
		eventuallyFds(t, base)
	})
	t.Run("open", func(t *testing.T) {
		ex, err := task.NewExecutor()
		require.NoError(t, err)
		closeAtEnd(t, "Executor", ex.Close)
		dir := t.TempDir()
		base := fdCount(t)
		var completed, closedByExecutor int
		var wrong []string
		for i := 0; i < scale(40, 20, 400); i++ {
			fifo := filepath.Join(dir, "fifo"+strconv.Itoa(i))
			require.NoError(t, unix.Mkfifo(fifo, 0o600))
			ctx, cancel := context.WithCancel(context.Background())
			// O_CREAT makes io_uring open in an io-wq worker (never inline
			// with O_NONBLOCK), where a FIFO blocks until a writer comes.
			h := task.SpawnOn(ctx, ex, func(tk *task.T) (int, error) { return tk.Open(fifo, unix.O_RDONLY|unix.O_CREAT, 0o600) })
			time.Sleep(5 * time.Millisecond)
			cancel()
			time.Sleep(time.Duration(i%8) * 20 * time.Microsecond) // race the cancel
			// A writer completes the open if the worker is still in it.
			w, werr := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0)
			wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
			fd, err := h.Wait(wctx)
			wcancel()
			if werr == nil {
				w.Close()
			}
			switch {
			case err == nil: // the open won the race: the fd is ours
				completed++
				require.NoError(t, unix.Close(fd))
			case !errors.Is(err, context.Canceled):
				wrong = append(wrong, fmt.Sprintf("round %d: %v", i, err))
			case werr == nil:
				// Cancelled, yet the open completed: the executor closes it.
				closedByExecutor++
			}
		}
		eventuallyFds(t, base)
		require.Empty(t, wrong, "a cancelled open must end with context.Canceled (the kernel answers an interrupted io-wq open with -ERESTARTSYS = 512)")
		t.Logf("opens: %d won the race, %d completed after their cancel (closed by the executor)", completed, closedByExecutor)
	})
}

// TestDeferTaskrunIdleThenPrompt: an executor and a poll loop (with
// DEFER_TASKRUN where they take it: from 6.1, not on kernels whose
// eventfd drops its wakeups, 6.12) idle for a second or two
// with a read in flight; data then arrives from another goroutine: the
// read completes (the wakeup reaches the sleeping owner), and new work
// from outside is served too. The loop's kernel waits last 30 s and each
// wait here is bounded by 10 s, so a completion seen only at the next
// timeout fails.
func TestDeferTaskrunIdleThenPrompt(t *testing.T) {
	idle := 2 * time.Second
	if testing.Short() {
		idle = time.Second
	}
	const bound = 10 * time.Second
	deferTaskrun := uring.CheckSetupFlag(sys.SetupDeferTaskrun) == nil
	t.Run("task", func(t *testing.T) {
		t.Parallel()
		ex, err := task.NewExecutor()
		require.NoError(t, err)
		closeAtEnd(t, "Executor", ex.Close)
		used := ex.Ring().SetupFlags()&sys.SetupDeferTaskrun != 0
		require.True(t, deferTaskrun || !used, "the executor uses DEFER_TASKRUN, which the probe says this kernel lacks")
		t.Logf("DEFER_TASKRUN: %v", used)
		pr, pw := rawPipe(t, 0)
		buf := make([]byte, 8)
		h := task.SpawnOn(context.Background(), ex, func(tk *task.T) (int, error) { return tk.Read(pr, buf, task.CurrentPos) })
		time.Sleep(idle)
		_, err = unix.Write(pw, []byte("late"))
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		n, err := h.Wait(ctx)
		require.NoError(t, err, "the read never completed: the idle executor missed the wakeup")
		require.Equal(t, 4, n)
		require.Equal(t, "late", string(buf[:n]))
		_, err = runTask(t, ex, bound, func(tk *task.T) (int, error) { return 0, tk.Nop() })
		require.NoError(t, err)
	})
	t.Run("poll", func(t *testing.T) {
		t.Parallel()
		l, err := poll.New(poll.WithWaitTimeout(30 * time.Second))
		require.NoError(t, err)
		closeAtEnd(t, "Loop", l.Close)
		var flags sys.SetupFlags
		require.NoError(t, l.Run(func() { flags = l.Ring().SetupFlags() }))
		used := flags&sys.SetupDeferTaskrun != 0
		require.True(t, deferTaskrun || !used, "the loop uses DEFER_TASKRUN, which the probe says this kernel lacks")
		t.Logf("DEFER_TASKRUN: %v", used)
		pr, pw := rawPipe(t, 0)
		buf := make([]byte, 8)
		got := make(chan poll.Result, 1)
		require.NoError(t, l.Go(func(s *sys.SQE) error { return sqe.Read(s, pr, buf, sqe.CurrentPos) },
			func(r poll.Result, err error) { require.NoError(t, err); got <- r }))
		time.Sleep(idle)
		_, err = unix.Write(pw, []byte("late"))
		require.NoError(t, err)
		select {
		case r := <-got:
			require.Equal(t, int32(4), r.Res)
		case <-time.After(bound):
			t.Fatalf("the read never completed within %v: the loop slept through the data (its waits last 30 s)", bound)
		}
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		_, err = l.Do(ctx, func(s *sys.SQE) error { sqe.Nop(s); return nil })
		require.NoError(t, err)
	})
}

const gcChildEnv = "URING_TEST_GC_CHILD"

// TestSoakGCStressClobberfree: reads whose buffers are unreachable from user
// code once submitted (the only reference is the task layer's), with
// runtime.GC() looping in another goroutine, in a child process run with
// GODEBUG=clobberfree=1 (the GC overwrites freed memory, so a buffer freed
// under the kernel corrupts what is read next): every byte that arrives is
// the byte sent, in order, and nothing crashes. Each read waits on a pipe
// (the kernel holds the buffer across parks and GCs); a weak pointer finds
// the buffer again after the read to check it.
func TestSoakGCStressClobberfree(t *testing.T) {
	if os.Getenv(gcChildEnv) == "" {
		out := testutil.Child(t, "TestSoakGCStressClobberfree", gcChildEnv+"=1", "GODEBUG=clobberfree=1")
		t.Log(out)
		return
	}
	reads := scale(100000, 10000, 3000000) // -short: a minute on a qemu VM without KVM (5.10)
	const size = 64
	const lanes = 16
	var stop atomic.Bool
	var gcs atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			runtime.GC()
			gcs.Add(1)
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()

	ex, err := task.NewExecutor()
	require.NoError(t, err)
	closeAtEnd(t, "Executor", ex.Close)
	var pipes [lanes][2]int
	for i := range pipes {
		pipes[i][0], pipes[i][1] = rawPipe(t, 0)
	}
	var verified, collected atomic.Int64
	t0 := time.Now()
	var progress atomic.Int64 // messages written
	_, err = runTaskWatched(t, ex, &progress, func(tk *task.T) (struct{}, error) {
		hs := make([]*task.Handle[struct{}], lanes)
		for lane := range hs {
			hs[lane] = task.Spawn(tk, func(tk *task.T) (struct{}, error) {
				pr := pipes[lane][0]
				for i := lane; i < reads; i += lanes {
					wp := readFresh(tk, pr, size)
					if wp.err != nil {
						return struct{}{}, fmt.Errorf("read %d: %w", i, wp.err)
					}
					b := wp.buf.Value()
					if b == nil {
						collected.Add(1)
						continue
					}
					for j, v := range b[:wp.n] {
						if v != pattern(i, j) {
							return struct{}{}, fmt.Errorf("read %d byte %d: got %#x want %#x (buffer freed under the kernel?)", i, j, v, pattern(i, j))
						}
					}
					verified.Add(1)
				}
				return struct{}{}, nil
			})
		}
		// The writer: one message per read, a lane at a time, so most reads
		// wait in the kernel for their data.
		msg := make([]byte, size)
		for i := 0; i < reads; i++ {
			for j := range msg {
				msg[j] = pattern(i, j)
			}
			if n, err := tk.Write(pipes[i%lanes][1], msg, task.CurrentPos); err != nil || n != size {
				return struct{}{}, fmt.Errorf("write %d: %d %w", i, n, err)
			}
			progress.Add(1)
			if i%lanes == lanes-1 {
				tk.Yield()
			}
		}
		for _, h := range hs {
			if _, err := h.Join(tk); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	require.NoError(t, err)
	t.Logf("%d reads in %v, %d GCs, %d verified, %d buffers already collected after their CQE",
		reads, time.Since(t0), gcs.Load(), verified.Load(), collected.Load())
	require.Equal(t, int64(reads), verified.Load()+collected.Load())
	require.NotZero(t, verified.Load(), "every buffer was collected before its check: nothing was verified")
}

func pattern(i, j int) byte { return byte(i*7 + j*13 + 1) }

type freshRead struct {
	buf *weak.Pointer[[64]byte]
	n   int
	err error
}

// readFresh reads into a new buffer that nothing but the task layer
// references during the read; it returns a weak pointer to it.
//
//go:noinline
func readFresh(tk *task.T, fd, size int) freshRead {
	b := new([64]byte)
	wp := weak.Make(b)
	n, err := tk.Read(fd, b[:size], task.CurrentPos)
	if err == nil && n != size {
		err = fmt.Errorf("short read %d", n)
	}
	return freshRead{buf: &wp, n: n, err: err}
}
