//go:build linux

package tests

import (
	"context"
	"fmt"
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestPeekFlushesOverflowAndTaskrun: PeekCQE alone (no wait call) drains a
// CQ that overflowed 10x, and a DEFER_TASKRUN ring whose completion waits
// as task work (IORING_SQ_TASKRUN): the library enters, nothing stalls.
func TestPeekFlushesOverflowAndTaskrun(t *testing.T) {
	t.Run("overflow", func(t *testing.T) {
		r := ringtest.New(t, 16, uring.WithCQSize(16))
		const total = 160
		for sent := 0; sent < total; sent += 16 {
			for i := 0; i < 16; i++ {
				sqe.Nop(getSQE(t, r))
				// set after the builder, which writes the whole SQE
			}
			_, err := r.Submit()
			require.NoError(t, err)
		}
		require.NotZero(t, r.SQFlags()&sys.SQCQOverflow, "the CQ should have overflowed")
		seen := 0
		for tries := 0; seen < total; tries++ {
			require.Less(t, tries, 10*total, "PeekCQE stalled after %d CQEs", seen)
			c, err := r.PeekCQE()
			require.NoError(t, err)
			if c != nil {
				require.Equal(t, int32(0), c.Res)
				r.CQESeen(c)
				seen++
			}
		}
		c, err := r.PeekCQE()
		require.NoError(t, err)
		require.Nil(t, c, "exactly %d CQEs", total)
		require.Zero(t, r.SQFlags()&sys.SQCQOverflow)
	})
	t.Run("taskrun", func(t *testing.T) {
		testutil.Require(t, uring.CheckSetupFlag(sys.SetupSingleIssuer|sys.SetupDeferTaskrun))
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r := ringtest.New(t, 8, uring.WithSingleIssuer(), uring.WithDeferTaskrun())
		pr, pw := pipe(t)
		buf := make([]byte, 4)
		s := getSQE(t, r)
		require.NoError(t, sqe.Read(s, rawFd(t, pr), buf, sqe.CurrentPos))
		s.UserData = 1
		_, err := r.Submit()
		require.NoError(t, err)
		_, err = pw.Write([]byte("ping"))
		require.NoError(t, err)
		deadline := time.Now().Add(2 * time.Second)
		for {
			c, err := r.PeekCQE()
			require.NoError(t, err)
			if c != nil {
				require.Equal(t, uint64(1), c.UserData)
				require.Equal(t, int32(4), c.Res)
				r.CQESeen(c)
				break
			}
			require.True(t, time.Now().Before(deadline), "PeekCQE never ran the deferred task work (SQ flags %v)", r.SQFlags())
			time.Sleep(time.Millisecond)
		}
		require.Equal(t, "ping", string(buf))
	})
}

// TestSingleIssuerForeignGoroutine: a SINGLE_ISSUER ring used from another
// thread gives a typed error, not the kernel's bare EEXIST; the poll loop
// and the task executor forward calls from any goroutine instead.
func TestSingleIssuerForeignGoroutine(t *testing.T) {
	for _, c := range []struct {
		name  string
		flags sys.SetupFlags
		opts  []uring.Option
	}{
		{"ring/single-issuer", sys.SetupSingleIssuer, []uring.Option{uring.WithSingleIssuer()}},
		{"ring/defer-taskrun", sys.SetupSingleIssuer | sys.SetupDeferTaskrun, []uring.Option{uring.WithSingleIssuer(), uring.WithDeferTaskrun()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			testutil.Require(t, uring.CheckSetupFlag(c.flags))
			runtime.LockOSThread()
			r := ringtest.New(t, 8, c.opts...)
			sqe.Nop(getSQE(t, r))
			_, err := r.SubmitAndWait(1) // the issuer is this thread now
			require.NoError(t, err)
			r.Advance(1)
			var subErr, waitErr error
			done := make(chan struct{})
			go func() {
				defer close(done)
				runtime.LockOSThread() // surely another thread
				defer runtime.UnlockOSThread()
				if s, err := r.GetSQE(); err == nil {
					sqe.Nop(s)
				}
				_, subErr = r.Submit()
				_, waitErr = r.WaitCQETimeout(10 * time.Millisecond)
			}()
			<-done
			runtime.UnlockOSThread()
			for _, err := range []error{subErr, waitErr} {
				require.Error(t, err)
				_, raw := err.(*os.SyscallError)
				require.False(t, raw, "a foreign thread got the kernel's raw error %q, not a typed one", err)
			}
		})
	}
	t.Run("poll", func(t *testing.T) {
		l, err := poll.New()
		require.NoError(t, err)
		closeAtEnd(t, "Loop", l.Close)
		pr, pw := rawPipe(t, 0)
		msg := []byte("foreign")
		res, err := l.Do(context.Background(), func(s *sys.SQE) error { return sqe.Write(s, pw, msg, sqe.CurrentPos) })
		require.NoError(t, err)
		require.Equal(t, int32(len(msg)), res.Res)
		got := make([]byte, 16)
		n, err := unix.Read(pr, got)
		require.NoError(t, err)
		require.Equal(t, "foreign", string(got[:n]))
	})
	t.Run("task", func(t *testing.T) {
		ex, err := task.NewExecutor()
		require.NoError(t, err)
		closeAtEnd(t, "Executor", ex.Close)
		_, err = runTask(t, ex, opBound, func(tk *task.T) (int, error) { return 0, tk.Nop() })
		require.NoError(t, err)
	})
}

// TestUserDataGenerationsUnderLoad: ops churn through a few slots (so the
// generations of each slot move on thousands of times) while reads stay in
// flight, and CQEs carrying tokens of finished ops or wrapped-around
// generations are injected: the loop and the executor drop every forged
// CQE, deliver every real one exactly once (each op reads its own length
// from a file: its result says whose CQE it got), and never complete an op
// in flight early. The forged CQEs come from another ring by MSG_RING
// (5.18), and, on every kernel, from NOPs with the forged user_data queued
// on the target's own SQ from its thread.
func TestUserDataGenerationsUnderLoad(t *testing.T) {
	for _, msgRing := range []bool{true, false} {
		name := "sq"
		if msgRing {
			name = "msg_ring"
		}
		t.Run(name, func(t *testing.T) {
			if msgRing {
				testutil.Require(t, uring.CheckOp(sys.OpMsgRing))
			}
			userDataGenerationsUnderLoad(t, msgRing)
		})
	}
}

func userDataGenerationsUnderLoad(t *testing.T, msgRing bool) {
	total := scale(20000, 5000, 2000000)
	var src *uring.Ring
	if msgRing {
		src = ringtest.New(t, 64)
	}
	// forge sends a CQE for each of uds into the ring with fd ringFd by
	// MSG_RING.
	forge := func(t *testing.T, ringFd int, uds []uint64) {
		for i := 0; i < len(uds); {
			n := 0
			for ; n < 32 && i < len(uds); n, i = n+1, i+1 {
				require.NoError(t, sqe.MsgRing(getSQE(t, src), ringFd, 0, uds[i]))
			}
			for _, c := range submitWait(t, src, n) {
				require.GreaterOrEqual(t, c.Res, int32(0), "MSG_RING: %d", c.Res)
			}
		}
	}
	// queueForged puts a NOP for each of uds on r's SQ (its owner's thread
	// only; the owner submits them with its next batch).
	queueForged := func(r *uring.Ring, uds []uint64) error {
		for _, ud := range uds {
			s, err := r.GetSQE()
			if err != nil {
				return err
			}
			sqe.Nop(s)
			s.UserData = ud
		}
		return nil
	}
	// A file whose reads return their length: op i reads lengthOf(i) bytes.
	const fileSize = 4096
	path := filepath.Join(t.TempDir(), "lengths")
	require.NoError(t, os.WriteFile(path, make([]byte, fileSize), 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	fileFd := int(f.Fd())
	lengthOf := func(i int) int { return 1 + i%fileSize }

	t.Run("poll", func(t *testing.T) {
		l, err := poll.New(poll.WithEntries(64), poll.WithoutDeferTaskrun())
		require.NoError(t, err)
		closeAtEnd(t, "Loop", l.Close)
		// Reads in flight for the whole run.
		const pending = 8
		pipes := make([][2]*os.File, pending)
		bufs := make([][]byte, pending)
		results := make(chan poll.Result, pending)
		for i := range pipes {
			pipes[i][0], pipes[i][1] = pipe(t)
			bufs[i] = make([]byte, 8)
			fd, buf := rawFd(t, pipes[i][0]), bufs[i]
			require.NoError(t, l.Go(func(s *sys.SQE) error { return sqe.Read(s, fd, buf, sqe.CurrentPos) },
				func(r poll.Result, err error) { require.NoError(t, err); results <- r }))
		}
		var ringFd int
		var old []uint64
		var mu sync.Mutex
		seen := make([]int, total)
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, fileSize)
				for i := w; i < total; i += 4 {
					n := lengthOf(i)
					res, err := l.Do(context.Background(), func(s *sys.SQE) error { return sqe.Read(s, fileFd, buf[:n], 0) })
					if err != nil || int(res.Res) != n {
						t.Errorf("op %d: %v %v, want %d bytes", i, res, err, n)
						return
					}
					mu.Lock()
					seen[i]++
					mu.Unlock()
				}
				runtime.KeepAlive(buf)
			}()
		}
		// Record tokens from the loop thread while the churn goes on.
		for round := 0; round < 20; round++ {
			require.NoError(t, l.Run(func() {
				ringFd = l.Ring().Fd()
				tok, err := l.Prep(poll.HandlerFunc(func(*sys.CQE) {}), func(s *sys.SQE) error { sqe.Nop(s); return nil })
				if err == nil {
					old = append(old, uint64(tok))
					// The same slot, generation wrapped by 2^31 (bits 32..62).
					old = append(old, uint64(tok)^(1<<62))
				}
			}))
			time.Sleep(time.Millisecond)
		}
		wg.Wait()
		require.NotEmpty(t, old)
		before := l.Stats().Stale
		if msgRing {
			forge(t, ringFd, old)
		} else {
			for i := 0; i < len(old); i += 16 {
				var qerr error
				require.NoError(t, l.Run(func() { qerr = queueForged(l.Ring(), old[i:min(i+16, len(old))]) }))
				require.NoError(t, qerr)
			}
		}
		require.Eventually(t, func() bool { return l.Stats().Stale-before == uint64(len(old)) }, time.Minute, time.Millisecond,
			"forged CQEs: %d counted stale of %d", l.Stats().Stale-before, len(old))
		for i, n := range seen {
			require.Equal(t, 1, n, "op %d delivered %d times", i, n)
		}
		require.Empty(t, results, "a read in flight completed early")
		for i := range pipes {
			_, err := pipes[i][1].Write([]byte("ok"))
			require.NoError(t, err)
		}
		for range pipes {
			select {
			case r := <-results:
				require.Equal(t, int32(2), r.Res)
			case <-time.After(time.Minute): // a hang guard
				t.Fatal("a read in flight never completed")
			}
		}
	})

	t.Run("task", func(t *testing.T) {
		ex, err := task.NewExecutor(task.WithoutDeferTaskrun())
		require.NoError(t, err)
		closeAtEnd(t, "Executor", ex.Close)
		pr, pw := pipe(t)
		prFd := rawFd(t, pr)
		got := make([]byte, 2)
		reader := task.SpawnOn(context.Background(), ex, func(tk *task.T) (int, error) { return tk.Read(prFd, got, task.CurrentPos) })
		// Forged CQEs for the first slots at generations far ahead (a
		// wrap-around), sent while the churn runs.
		var uds []uint64
		for idx := uint64(0); idx < 64; idx++ {
			for g := uint64(0); g < 4; g++ {
				uds = append(uds, (0xFFFFFFF0+g)<<32|idx)
			}
		}
		forged := make(chan struct{})
		if msgRing {
			go func() { defer close(forged); forge(t, ex.Ring().Fd(), uds) }()
		}
		var toQueue []uint64 // without MSG_RING: queued from the churning task
		if !msgRing {
			toQueue = uds
		}
		var count int
		var progress atomic.Int64
		_, err = runTaskWatched(t, ex, &progress, func(tk *task.T) (struct{}, error) {
			const width = 16
			hs := make([]*task.Handle[int], 0, width)
			for i := 0; i < total; i++ {
				progress.Add(1)
				hs = append(hs, task.Spawn(tk, func(tk *task.T) (int, error) {
					b := make([]byte, lengthOf(i))
					res, _, err := tk.Await(func(s *sys.SQE) { _ = sqe.Read(s, fileFd, b, 0) })
					runtime.KeepAlive(b)
					return int(res), err
				}))
				if !msgRing && len(toQueue) > 0 && i%4 == 0 {
					k := min(4, len(toQueue))
					if err := queueForged(tk.Executor().Ring(), toQueue[:k]); err != nil {
						return struct{}{}, fmt.Errorf("queueing forged NOPs: %w", err)
					}
					toQueue = toQueue[k:]
				}
				if len(hs) == width || i == total-1 {
					for j, h := range hs {
						v, err := h.Join(tk)
						if err != nil {
							return struct{}{}, err
						}
						if want := lengthOf(i - len(hs) + 1 + j); v != want {
							t.Errorf("task %d got result %d, want %d", i-len(hs)+1+j, v, want)
						}
						count++
					}
					hs = hs[:0]
				}
			}
			return struct{}{}, nil
		})
		require.NoError(t, err)
		if msgRing {
			<-forged
		}
		require.Empty(t, toQueue, "forged NOPs left unqueued")
		require.Equal(t, total, count)
		// (Handle.Done is for tasks; from here, a Wait that times out.)
		early, cancelEarly := context.WithTimeout(context.Background(), 10*time.Millisecond)
		_, err = reader.Wait(early)
		cancelEarly()
		require.ErrorIs(t, err, context.DeadlineExceeded, "a forged CQE completed the read in flight")
		_, err = pw.Write([]byte("ok"))
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n, err := reader.Wait(ctx)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		require.Equal(t, "ok", string(got))
	})
}
