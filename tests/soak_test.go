//go:build linux

package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/pure-uring/uring/tests/ringtest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The soak and load tests. Each runs a short version in the default suite
// (seconds), a medium one with -tags soak -short (.ci/soak.sh, a few
// minutes in all) and the long one with -tags soak:
//
//	go test -tags soak -run Soak -timeout 60m ./tests/
//
// soakN picks the count: small (default), medium (soak -short), long (soak).
func soakN(small, medium, long int) int {
	n := small
	if soakTag {
		n = long
		if testing.Short() {
			n = medium
		}
	}
	if raceEnabled {
		n = max(n/10, 1)
	}
	return emulated(n)
}

// TestSoakNops: 10M NOPs (long) at SQ depths 1..4096, in random batch
// sizes, through one ring per depth: every user_data completes exactly
// once, the counts are exact, and the RSS at the end is within 16 MiB of
// the RSS after the first quarter (nothing grows per op).
func TestSoakNops(t *testing.T) {
	total := soakN(1000000, 10000000, 100000000)
	depths := []uint32{1, 2, 8, 64, 256, 1024, 4096}
	// Deep rings get most of the NOPs: at depth 1 each NOP is a syscall.
	weight, sum := func(d uint32) int { return int(min(d, 256)) }, 0
	for _, d := range depths {
		sum += weight(d)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	cqes := make([]sys.CQE, 4096)
	var rss [3]int
	done := 0
	for di, depth := range depths {
		r, err := uring.New(depth, uring.WithCQSize(2*depth))
		require.NoError(t, err)
		share := total * weight(depth) / sum
		seen := make([]uint8, depth) // per batch: user_data = sent + i
		for sent := 0; sent < share; {
			batch := 1 + rng.IntN(int(depth))
			batch = min(batch, share-sent)
			for i := 0; i < batch; i++ {
				s, err := r.GetSQE()
				if err != nil {
					t.Fatalf("GetSQE: %v", err)
				}
				sqe.Nop(s)
				s.UserData = uint64(sent + i)
			}
			n, err := r.SubmitAndWait(uint32(batch))
			require.NoError(t, err)
			require.Equal(t, batch, n)
			for got := 0; got < batch; {
				k := r.Reap(cqes)
				if k == 0 {
					_, err := r.WaitCQE()
					require.NoError(t, err)
					continue
				}
				for _, c := range cqes[:k] {
					if c.Res != 0 || c.UserData < uint64(sent) || c.UserData >= uint64(sent+batch) {
						t.Fatalf("depth %d: CQE %+v outside batch [%d, %d)", depth, c, sent, sent+batch)
					}
					seen[c.UserData-uint64(sent)]++
				}
				got += k
			}
			for i, n := range seen[:batch] {
				if n != 1 {
					t.Fatalf("depth %d: user_data %d completed %d times", depth, sent+i, n)
				}
				seen[i] = 0
			}
			sent += batch
		}
		require.Zero(t, r.CQReady())
		require.NoError(t, r.Close())
		done += share
		switch di {
		case 0:
			runtime.GC()
			rss[0] = rssKB(t)
		case len(depths) / 2:
			runtime.GC()
			rss[1] = rssKB(t)
		}
	}
	runtime.GC()
	rss[2] = rssKB(t)
	t.Logf("%d NOPs at depths %v; VmRSS start/middle/end %v kB", done, depths, rss)
	require.Less(t, rss[2]-rss[0], 16<<10, "RSS grew from %d to %d kB", rss[0], rss[2])
}

// TestSoakTaskPipePingPong: 100k tasks (long) in pairs, each pair passing
// a counter back and forth over two pipes; every task finishes with the
// right count, and no fd or goroutine is left over (tests/ TestMain).
func TestSoakTaskPipePingPong(t *testing.T) {
	tasks := soakN(4000, 100000, 1000000)
	const pairs = 64 // pairs in flight at once
	const rounds = 8 // ping-pongs per pair
	var pipes [pairs][2][2]int
	for i := range pipes {
		for j := range pipes[i] {
			pipes[i][j][0], pipes[i][j][1] = rawPipe(t, 0)
		}
	}
	base := fdCount(t)
	ex, err := task.NewExecutor()
	require.NoError(t, err)
	closeAtEnd(t, "Executor", ex.Close)
	finished := 0
	t0 := time.Now()
	var progress atomic.Int64 // tasks joined
	_, err = runTaskWatched(t, ex, &progress, func(tk *task.T) (struct{}, error) {
		for wave := 0; finished < tasks; wave++ {
			hs := make([]*task.Handle[int], 0, 2*pairs)
			for p := 0; p < pairs && finished+len(hs) < tasks; p++ {
				ping, pong := pipes[p][0], pipes[p][1]
				hs = append(hs, task.Spawn(tk, func(tk *task.T) (int, error) {
					b := make([]byte, 8)
					for i := 0; i < rounds; i++ {
						binary.LittleEndian.PutUint64(b, uint64(wave*rounds+i))
						if _, err := tk.Write(ping[1], b, task.CurrentPos); err != nil {
							return i, err
						}
						if n, err := tk.Read(pong[0], b, task.CurrentPos); err != nil || n != 8 || binary.LittleEndian.Uint64(b) != uint64(wave*rounds+i)+1 {
							return i, fmt.Errorf("pong %d: %d %v", i, n, err)
						}
					}
					return rounds, nil
				}), task.Spawn(tk, func(tk *task.T) (int, error) {
					b := make([]byte, 8)
					for i := 0; i < rounds; i++ {
						if n, err := tk.Read(ping[0], b, task.CurrentPos); err != nil || n != 8 {
							return i, fmt.Errorf("ping %d: %d %v", i, n, err)
						}
						binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)+1)
						if _, err := tk.Write(pong[1], b, task.CurrentPos); err != nil {
							return i, err
						}
					}
					return rounds, nil
				}))
			}
			for _, h := range hs {
				n, err := h.Join(tk)
				if err != nil {
					return struct{}{}, err
				}
				if n != rounds {
					return struct{}{}, fmt.Errorf("task did %d rounds", n)
				}
				finished++
				progress.Add(1)
			}
		}
		return struct{}{}, nil
	})
	require.NoError(t, err)
	t.Logf("%d tasks, %d ping-pongs each, in %v", finished, rounds, time.Since(t0))
	require.Equal(t, tasks, finished)
	waitFor(t, opBound, "Executor.Close", func() { err = ex.Close() })
	require.NoError(t, err)
	eventuallyFds(t, base) // the executor's ring fd is gone too
}

// TestSoakMultishotRecvSmallCQ: a multishot receive from provided buffers
// on a ring whose CQ holds 8 CQEs, reaped slowly while a writer streams
// data: the CQ overflows, the receive ends (no F_MORE) when it must and is
// re-armed; every byte arrives once, in order. Multishot receive: 6.0.
func TestSoakMultishotRecvSmallCQ(t *testing.T) {
	testutil.Require(t, uring.CheckCapability(uring.CapMultishotRecv))
	total := soakN(4<<20, 256<<20, 4<<30)
	r := ringtest.New(t, 4, uring.WithCQSize(8))
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 1, Count: 16, Size: 4096})
	require.NoError(t, err)
	defer pool.Close()
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(sp[0])
	wf := os.NewFile(uintptr(sp[1]), "writer")
	defer wf.Close()
	werr := make(chan error, 1)
	go func() {
		b := make([]byte, 1500)
		for off := 0; off < total; off += len(b) {
			n := min(len(b), total-off)
			for i := range b[:n] {
				b[i] = byte((off + i) % 251)
			}
			if _, err := wf.Write(b[:n]); err != nil {
				werr <- err
				return
			}
		}
		werr <- nil
	}()
	arm := func() {
		s := getSQE(t, r)
		require.NoError(t, sqe.RecvMultishot(s, sp[0], 0, 1))
		s.UserData = 9
		_, err := r.Submit()
		require.NoError(t, err)
	}
	arm()
	got, arms, overflows, enobufs := 0, 1, 0, 0
	cs := make([]sys.CQE, 4)
	deadline := time.Now().Add(2 * time.Minute)
	for got < total {
		require.True(t, time.Now().Before(deadline), "stalled at %d of %d bytes", got, total)
		if r.SQFlags()&sys.SQCQOverflow != 0 {
			overflows++
		}
		n := r.Reap(cs[:1+got%len(cs)]) // reap few at a time
		if n == 0 {
			_, err := r.WaitCQETimeout(time.Second)
			if !errors.Is(err, uring.ErrTimeout) {
				require.NoError(t, err)
			}
			continue
		}
		for _, c := range cs[:n] {
			require.Equal(t, uint64(9), c.UserData)
			if c.Res > 0 {
				bid, data, err := pool.Take(c.Res, c.Flags)
				require.NoError(t, err)
				for i, v := range data {
					if v != byte((got+i)%251) {
						t.Fatalf("byte %d: got %d want %d", got+i, v, byte((got+i)%251))
					}
				}
				got += len(data)
				require.NoError(t, pool.Put(bid))
			} else if c.Res == -int32(unix.ENOBUFS) {
				enobufs++
			} else {
				require.Failf(t, "recv failed", "res %d", c.Res)
			}
			if !cqe.More(&c) {
				arm()
				arms++
			}
		}
	}
	require.NoError(t, <-werr)
	t.Logf("%d bytes; armed %d times, %d ENOBUFS, CQ overflow seen %d times", got, arms, enobufs, overflows)
	require.Equal(t, total, got)
	require.Zero(t, pool.Out())
}

// TestSoakFixedFilesRegisteredBuffers: random-offset writes and reads of
// random lengths through a registered file and registered buffers; after
// every write the bytes pread(2) returns equal the buffer, and every read
// equals pread.
func TestSoakFixedFilesRegisteredBuffers(t *testing.T) {
	ops := soakN(20000, 200000, 2000000)
	const fileSize = 4 << 20
	const bufSize = 64 << 10
	r := ringtest.New(t, 64)
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "data"), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, f.Truncate(fileSize))
	fd := int(f.Fd())
	files, err := reg.RegisterFiles(r, []int{fd}, nil)
	require.NoError(t, err)
	defer files.Unregister()
	bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 8, Size: bufSize})
	require.NoError(t, err)
	defer bufs.Unregister()
	require.NoError(t, bufs.Acquire())
	defer bufs.Release()
	rng := rand.New(rand.NewPCG(9, 10))
	check := make([]byte, bufSize)
	noise := make([]byte, 2*bufSize)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	for i := 0; i < ops; i++ {
		idx := rng.IntN(bufs.Len())
		n := 1 + rng.IntN(bufSize)
		off := int64(rng.IntN(fileSize - n))
		b := bufs.Buf(idx)[:n]
		write := i%2 == 0
		if write {
			copy(b, noise[rng.IntN(bufSize):])
		}
		s := getSQE(t, r)
		if write {
			require.NoError(t, sqe.WriteFixed(s, 0, b, off, uint16(idx)))
		} else {
			require.NoError(t, sqe.ReadFixed(s, 0, b, off, uint16(idx)))
		}
		require.NoError(t, sqe.SetSlot(s, 0))
		s.UserData = uint64(i)
		c := submitWait(t, r, 1)[0]
		require.Equal(t, uint64(i), c.UserData)
		require.Equal(t, int32(n), c.Res, "op %d (write %v) at %d", i, write, off)
		m, err := unix.Pread(fd, check[:n], off)
		require.NoError(t, err)
		require.Equal(t, n, m)
		if !bytes.Equal(check[:n], b) {
			t.Fatalf("op %d (write %v): %d bytes at %d differ from pread", i, write, n, off)
		}
	}
	t.Logf("%d fixed-file, fixed-buffer ops checked against pread", ops)
}

// TestSoakSQPollIdleGaps: bursts separated by gaps in which the SQ
// thread goes to sleep (idle 10 ms; each gap waits until the ring shows
// IORING_SQ_NEED_WAKEUP): Submit wakes it and every burst completes; also
// through the poll loop's SQPoll strategy, whose wakeups are counted.
func TestSoakSQPollIdleGaps(t *testing.T) {
	gaps := soakN(5, 100, 2000)
	// asleep waits until flags (the SQ ring's flags, read where allowed)
	// show the SQ thread asleep.
	asleep := func(g int, flags func() sys.SQRingFlags) {
		deadline := time.Now().Add(opBound)
		for flags()&sys.SQNeedWakeup == 0 {
			require.True(t, time.Now().Before(deadline), "gap %d: the idle SQ thread never went to sleep", g)
			time.Sleep(time.Millisecond)
		}
	}
	r := ringtest.New(t, 32, uring.WithSQPoll(10*time.Millisecond))
	for g := 0; g < gaps; g++ {
		asleep(g, r.SQFlags)
		for i := 0; i < 16; i++ {
			sqe.Nop(getSQE(t, r))
		}
		n, err := r.Submit()
		require.NoError(t, err)
		require.Equal(t, 16, n)
		require.Len(t, reap(t, r, 16), 16, "gap %d: the SQ thread was not woken", g)
	}

	l, err := poll.New(poll.WithStrategy(poll.SQPoll), poll.WithSQPollIdle(10*time.Millisecond))
	if errors.Is(err, uring.ErrUnsupported) {
		testutil.Require(t, err)
	}
	require.NoError(t, err)
	closeAtEnd(t, "Loop", l.Close)
	loopFlags := func() (f sys.SQRingFlags) {
		require.NoError(t, l.Run(func() { f = l.Ring().SQFlags() }))
		return f
	}
	// Each gap's NOP is prepared on the loop thread in the same Run that
	// sees the SQ thread asleep: a Do from here would first wake a loop
	// asleep in the kernel through the eventfd poll armed in its ring,
	// whose completion runs on — and so wakes — the SQ thread, leaving the
	// loop's submit nothing to wake (seen: 4 wakeups in 5 gaps).
	type nopDone struct {
		res     int32
		wakeups uint64 // the loop's count when the CQE came
	}
	for g := 0; g < gaps; g++ {
		var sleeping bool
		var before uint64
		var prepErr error
		done := make(chan nopDone, 1)
		for try := 0; !sleeping; try++ {
			require.Less(t, try, 100, "gap %d: the SQ thread never stayed asleep until the loop looked", g)
			asleep(g, loopFlags)
			require.NoError(t, l.Run(func() {
				if sleeping = l.Ring().SQFlags()&sys.SQNeedWakeup != 0; !sleeping {
					return // woken since: wait for the next sleep
				}
				before = l.Stats().SQWakeups
				_, prepErr = l.Prep(poll.HandlerFunc(func(c *sys.CQE) { done <- nopDone{c.Res, l.Stats().SQWakeups} }),
					func(s *sys.SQE) error { sqe.Nop(s); return nil })
			}))
			require.NoError(t, prepErr)
		}
		select {
		case d := <-done:
			require.Zero(t, d.res, "gap %d", g)
			require.Greater(t, d.wakeups, before, "gap %d: the loop's submit woke the sleeping SQ thread", g)
		case <-time.After(opBound):
			t.Fatalf("gap %d: the loop did not wake its SQ thread", g)
		}
	}
}

// TestSoakIOPollWithoutPollQueues: reads on IOPOLL rings of a file whose
// device has no poll queues (O_DIRECT where the file system has it, else a
// buffered read, which IOPOLL refuses the same way) fail cleanly with
// EOPNOTSUPP, every time, and the ring (and the IOPoll loop) keep
// completing NOPs in between, each with the same answer (0; EINVAL on
// kernels that refuse NOP on IOPOLL rings, before 5.19).
func TestSoakIOPollWithoutPollQueues(t *testing.T) {
	rounds := soakN(20, 1000, 20000)
	path := filepath.Join(t.TempDir(), "direct")
	require.NoError(t, os.WriteFile(path, make([]byte, 1<<20), 0o600))
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.EINVAL) {
		t.Logf("the file system of %s has no O_DIRECT: buffered reads", path)
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	require.NoError(t, err)
	defer unix.Close(fd)
	buf, err := sys.MmapAnon(4096, false)
	require.NoError(t, err)
	defer sys.Munmap(buf)

	r := ringtest.New(t, 8, uring.WithIOPoll())
	var readRes, nopRes int32
	for i := 0; i < rounds; i++ {
		s := getSQE(t, r)
		require.NoError(t, sqe.Read(s, fd, buf, int64(i%256)*4096))
		s.UserData = 1
		s = getSQE(t, r)
		sqe.Nop(s)
		s.UserData = 2
		cs := byUD(t, submitWait(t, r, 2))
		if i == 0 {
			// A device with poll queues reads; one without refuses.
			readRes, nopRes = cs[1].Res, cs[2].Res
			require.Contains(t, []int32{4096, -int32(unix.EOPNOTSUPP)}, readRes)
			require.Contains(t, []int32{0, -int32(unix.EINVAL)}, nopRes)
			t.Logf("read: %d, NOP: %d", readRes, nopRes)
		}
		require.Equal(t, readRes, cs[1].Res, "round %d", i)
		require.Equal(t, nopRes, cs[2].Res, "round %d", i)
	}

	l, err := poll.New(poll.WithStrategy(poll.IOPoll))
	require.NoError(t, err)
	closeAtEnd(t, "Loop", l.Close)
	for i := 0; i < rounds; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), opBound)
		res, err := l.Do(ctx, func(s *sys.SQE) error { return sqe.Read(s, fd, buf, 0) })
		if readRes < 0 {
			require.ErrorIs(t, err, unix.Errno(-readRes), "round %d", i)
		} else {
			require.NoError(t, err, "round %d", i)
			require.Equal(t, readRes, res.Res)
		}
		_, err = l.Do(ctx, func(s *sys.SQE) error { sqe.Nop(s); return nil })
		cancel()
		if nopRes < 0 {
			require.ErrorIs(t, err, unix.Errno(-nopRes), "round %d", i)
		} else {
			require.NoError(t, err, "round %d", i)
		}
	}
}
