//go:build linux

package poll

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

func newShared(t *testing.T, entries uint32) *Shared {
	t.Helper()
	s, err := NewShared(entries)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

func nopPrep(q *sys.SQE) error { sqe.Nop(q); return nil }

// Many goroutines read different parts of one file through one Shared:
// every read returns its own bytes, whoever led when it completed.
func TestSharedConcurrentReads(t *testing.T) {
	s := newShared(t, 32) // fewer SQEs than goroutines: the SQ fills and drains
	path := filepath.Join(t.TempDir(), "data")
	const block, blocks = 512, 256
	data := make([]byte, block*blocks)
	for i := range data {
		data[i] = byte(i / block)
	}
	require.NoError(t, os.WriteFile(path, data, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	fd := int(f.Fd())
	var wg sync.WaitGroup
	errs := make(chan error, blocks)
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			buf := make([]byte, block)
			for k := 0; k < 20; k++ {
				b := (g*7 + k*13) % blocks
				res, _, err := s.Do(func(q *sys.SQE) error { return sqe.Read(q, fd, buf, int64(b*block)) }, buf)
				if err != nil || res != block {
					errs <- fmt.Errorf("block %d: res %d err %v", b, res, err)
					return
				}
				for _, c := range buf {
					if c != byte(b) {
						errs <- fmt.Errorf("block %d: read byte %d", b, c)
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// The lead moves: a lone goroutine leads; once two are in flight the
// reaper takes the lead and reaps every CQE, and it gives the lead up when
// nothing has been in flight for reaperIdle.
func TestSharedLeadHandoff(t *testing.T) {
	s := newShared(t, 8)
	r1, w1 := testutil.Pipe(t)
	r2, w2 := testutil.Pipe(t)
	read := func(fd int) chan int32 { return readByte(s, fd) }
	a := read(r1)
	waitPending(t, s, 1)
	b := read(r2)
	waitPending(t, s, 2)
	// The second read completes first: its CQE is reaped by the first.
	_, err := unix.Write(w2, []byte("y"))
	require.NoError(t, err)
	require.Equal(t, int32(1), within(t, b))
	// Then the leader's own; with nothing left the lead is given up.
	_, err = unix.Write(w1, []byte("x"))
	require.NoError(t, err)
	require.Equal(t, int32(1), within(t, a))

	// The first read completes first, with another still in flight: the
	// reaper, which leads, delivers both.
	c := read(r1)
	waitPending(t, s, 1)
	d := read(r2)
	waitPending(t, s, 2)
	_, err = unix.Write(w1, []byte("x"))
	require.NoError(t, err)
	require.Equal(t, int32(1), within(t, c))
	_, err = unix.Write(w2, []byte("y"))
	require.NoError(t, err)
	require.Equal(t, int32(1), within(t, d))
	// Nothing in flight: the reaper gives the lead up after reaperIdle.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(reaperIdle) {
		s.mu.Lock()
		leading := s.leading
		s.mu.Unlock()
		if !leading {
			break
		}
		require.True(t, time.Now().Before(deadline), "nothing in flight for a minute and the lead was not given up")
	}
}

// readByte reads one byte of fd through s in a goroutine; the channel
// gets its res, or -1 when Do failed.
func readByte(s *Shared, fd int) chan int32 {
	out := make(chan int32, 1)
	go func() {
		buf := make([]byte, 1)
		res, _, err := s.Do(func(q *sys.SQE) error { return sqe.Read(q, fd, buf, -1) }, buf)
		if err != nil {
			res = -1
		}
		out <- res
	}()
	return out
}

// waitPending waits until n operations are in flight (a minute at most: a
// hang guard).
func waitPending(t *testing.T, s *Shared, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; runtime.Gosched() {
		s.mu.Lock()
		p := s.pending
		s.mu.Unlock()
		if p >= n {
			return
		}
		require.True(t, time.Now().Before(deadline), "only %d of %d operations in flight", p, n)
	}
}

func within(t *testing.T, ch chan int32) int32 {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatal("no result within a minute")
		return 0
	}
}

// A request the kernel cancels on its own (a signal spoiling the start of
// its thread's first io-wq worker: every pipe read and write on 5.10 and
// 6.1, IOSQE_ASYNC ones everywhere) never ran: Do submits it again, and
// its caller never sees -ECANCELED. Each round runs on a new thread under
// a SIGURG storm.
func TestSharedResubmitsKernelCancels(t *testing.T) {
	s := newShared(t, 8)
	for round := 0; round < 48; round++ {
		r, w := testutil.Pipe(t)
		_, err := unix.Write(w, []byte("x"))
		require.NoError(t, err)
		res := make(chan int32, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the next round gets another thread
			stop := testutil.SignalStorm(unix.Gettid())
			defer stop()
			buf := make([]byte, 1)
			n, _, err := s.Do(func(q *sys.SQE) error {
				if err := sqe.Read(q, r, buf, -1); err != nil {
					return err
				}
				sqe.SetAsync(q)
				return nil
			}, buf)
			if err != nil {
				n = -1
			}
			res <- n
		}()
		require.Equal(t, int32(1), within(t, res), "round %d", round)
	}
}

// Close cancels what is in flight and waits for it; Do returns ErrClosed.
func TestSharedClose(t *testing.T) {
	s, err := NewShared(4)
	require.NoError(t, err)
	defer s.Close()
	r, _ := testutil.Pipe(t)
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 1)
		_, _, err := s.Do(func(q *sys.SQE) error { return sqe.Read(q, r, buf, -1) }, buf)
		done <- err
	}()
	waitPending(t, s, 1)
	require.NoError(t, s.Close())
	select {
	case err := <-done:
		require.ErrorIs(t, err, uring.ErrClosed)
	case <-time.After(time.Minute):
		t.Fatal("Do still waits after Close")
	}
	_, _, err = s.Do(nopPrep, nil)
	require.ErrorIs(t, err, uring.ErrClosed)
	require.NoError(t, s.Close(), "a second Close")
}

// The idle timer's wake can run after Close (its callback was already
// started when the reaper stopped it): it must not write into the file
// that took the eventfd's number. CI caught the 8-byte counter increment
// in an example's captured stdout, a pipe that had reused the number.
func TestSharedWakeAfterCloseWritesNoReusedFd(t *testing.T) {
	s, err := NewShared(4)
	require.NoError(t, err)
	num := s.wake.fd
	require.NoError(t, s.Close())
	// The pipe is opened after Close, so it may already have the number;
	// Dup3 refuses oldfd == newfd, hence moveTo.
	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK))
	moveTo := func(fd int) int {
		if fd != num {
			require.NoError(t, unix.Dup2(fd, num))
			require.NoError(t, unix.Close(fd))
		}
		return num
	}
	buf := make([]byte, 16)

	r := p[0]
	if r == num {
		r, err = unix.Dup(r) // keep the read end while num changes hands
		require.NoError(t, err)
	}
	w := moveTo(p[1]) // the pipe's write end takes the eventfd's old number
	s.wakeLeader()    // as the timer's callback does
	n, err := unix.Read(r, buf)
	require.ErrorIs(t, err, unix.EAGAIN, "a late wake wrote %d bytes %x into the fd that reused the number", n, buf[:max(n, 0)])

	// A reaper that ends after Close drains the eventfd on a wake CQE: the
	// drain must not eat another file's bytes either.
	w, err = unix.Dup(w)
	require.NoError(t, err)
	r = moveTo(r) // now the read end has the number
	defer unix.Close(r)
	defer unix.Close(w)
	_, err = unix.Write(w, []byte("kept"))
	require.NoError(t, err)
	s.wake.drain()
	n, err = unix.Read(r, buf)
	require.NoError(t, err)
	require.Equal(t, "kept", string(buf[:n]), "the drain after Close read from the reused number")
}

// A goroutine alone submits and waits in one enter, and allocates nothing.
func TestSharedAllocs(t *testing.T) {
	s := newShared(t, 8)
	buf := make([]byte, 8)
	allocs := testing.AllocsPerRun(200, func() {
		if _, _, err := s.Do(nopPrep, buf); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs)
}

// A batch larger than the SQ runs whole: every read returns its own
// block; a prep error stops the batch there, the SQEs before it still run.
func TestSharedDoBatch(t *testing.T) {
	s := newShared(t, 8)
	path := filepath.Join(t.TempDir(), "data")
	const block, blocks = 512, 64
	data := make([]byte, block*blocks)
	for i := range data {
		data[i] = byte(i / block)
	}
	require.NoError(t, os.WriteFile(path, data, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	fd := int(f.Fd())
	bufs := make([][]byte, 40)
	for i := range bufs {
		bufs[i] = make([]byte, block)
	}
	res := make([]int32, len(bufs))
	block0 := func(i int) int { return (i * 7) % blocks }
	err = s.DoBatch(res, func(i int, q *sys.SQE) error {
		return sqe.Read(q, fd, bufs[i], int64(block0(i)*block))
	}, func(i int) []byte { return bufs[i] })
	require.NoError(t, err)
	for i := range bufs {
		require.Equal(t, int32(block), res[i], "read %d", i)
		require.Equal(t, data[block0(i)*block:(block0(i)+1)*block], bufs[i], "read %d", i)
	}

	bad := errors.New("prep refused")
	err = s.DoBatch(res, func(i int, q *sys.SQE) error {
		if i == 5 {
			return bad
		}
		return sqe.Read(q, fd, bufs[i], 0)
	}, nil)
	require.ErrorIs(t, err, bad)
	for i := range res {
		if i < 5 {
			require.Equal(t, int32(block), res[i], "read %d ran", i)
		} else {
			require.Zero(t, res[i], "read %d was not submitted", i)
		}
	}
	require.NoError(t, s.DoBatch(nil, nil, nil), "an empty batch")
	s.mu.Lock()
	pending := s.pending
	s.mu.Unlock()
	require.Zero(t, pending)
}

// An io_uring_enter that fails for good (here the ring's fd number now
// names /dev/null, as a seccomp filter added after the ring was made
// would make it fail with EPERM) fails the calls with its error instead
// of leaving them waiting.
func TestSharedBrokenEnterFailsCalls(t *testing.T) {
	s, err := NewShared(8)
	require.NoError(t, err)
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	require.NoError(t, unix.Dup2(int(null.Fd()), s.r.Fd()))
	for range 2 {
		_, _, err = s.Do(nopPrep, nil)
		require.ErrorIs(t, err, unix.EOPNOTSUPP)
	}
	res := make([]int32, 3)
	require.ErrorIs(t, s.DoBatch(res, func(i int, q *sys.SQE) error { sqe.Nop(q); return nil }, nil), unix.EOPNOTSUPP)
	s.mu.Lock()
	require.Empty(t, s.limbo, "nothing reached the kernel: nothing stays pinned")
	s.mu.Unlock()
	_ = s.Close() // the Ring's own teardown meets /dev/null: its error is not the point
}

// A nil prep is an argument error naming it, not a panic.
func TestSharedNilPrep(t *testing.T) {
	s := newShared(t, 4)
	_, _, err := s.Do(nil, nil)
	var ae *uring.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "prep", ae.Arg)
	require.ErrorAs(t, s.DoBatch(make([]int32, 2), nil, nil), &ae)
	require.Equal(t, "Shared.DoBatch", ae.Func)
}

// The reaper is an ordinary goroutine: it submits from whatever thread
// it runs on, and a request's completion work goes to that thread. Such
// a thread may end (a goroutine that locked it exits): the kernel then
// cancels the requests it submitted, which Do submits again. Reads of
// pipes, in flight while threads end all around, return their bytes.
func TestSharedSubmittersThreadsEnd(t *testing.T) {
	s := newShared(t, 64)
	const readers = 16
	for round := 0; round < 8; round++ {
		ws := make([]int, readers)
		res := make(chan int32, readers)
		for i := range readers {
			r, w := testutil.Pipe(t)
			ws[i] = w
			go func() {
				buf := make([]byte, 1)
				n, _, err := s.Do(func(q *sys.SQE) error { return sqe.Read(q, r, buf, -1) }, buf)
				if err != nil || n != 1 || buf[0] != 'x' {
					n = -1
				}
				res <- n
			}()
		}
		var ended sync.WaitGroup
		for range 64 { // threads end while the reads wait
			ended.Add(1)
			go func() {
				defer ended.Done()
				runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
				runtime.Gosched()
			}()
		}
		ended.Wait()
		for _, w := range ws {
			_, err := unix.Write(w, []byte("x"))
			require.NoError(t, err)
		}
		for range readers {
			require.Equal(t, int32(1), within(t, res), "round %d", round)
		}
	}
}

// The reaper yields to the goroutines it woke only while the kernel holds
// at most yieldInFlight operations: with more in flight it reaps again at
// once. Reads of empty pipes hold the count; NOPs from one goroutine give
// the reaper completions to deliver.
func TestSharedReaperYieldsOnlyWhileFewInFlight(t *testing.T) {
	s := newShared(t, 256)
	const held = yieldInFlight + 8
	writers := make([]int, held)
	results := make([]chan int32, held)
	for i := range held {
		r, w := testutil.Pipe(t)
		writers[i] = w
		results[i] = readByte(s, r)
		waitPending(t, s, i+1)
	}
	nops := func(n int) uint64 {
		s.mu.Lock()
		before := s.yields
		s.mu.Unlock()
		for range n {
			res, _, err := s.Do(nopPrep, nil)
			require.NoError(t, err)
			require.Equal(t, int32(0), res)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		require.True(t, s.reaping, "the reaper delivers the NOPs")
		return s.yields - before
	}
	require.Equal(t, uint64(0), nops(100), "%d reads in the kernel: no yield", held)

	// Complete all but 8 reads: now the reaper yields after each delivery.
	for i := range held - 8 {
		_, err := unix.Write(writers[i], []byte("x"))
		require.NoError(t, err)
		require.Equal(t, int32(1), within(t, results[i]))
	}
	require.Equal(t, uint64(100), nops(100), "8 reads in the kernel: a yield after each NOP's delivery")
	for i := held - 8; i < held; i++ {
		_, err := unix.Write(writers[i], []byte("x"))
		require.NoError(t, err)
		require.Equal(t, int32(1), within(t, results[i]))
	}
}

// Records pushed from many goroutines at once come off the free stack
// each exactly once, and then it is empty.
func TestSharedFreeOpsConcurrentPush(t *testing.T) {
	const n = 512
	ops := make([]*sharedOp, n)
	for i := range ops {
		ops[i] = &sharedOp{idx: uint32(i)}
	}
	var f freeOps
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 8 {
				f.push(ops[i])
			}
		}()
	}
	wg.Wait()
	seen := make([]bool, n)
	for range n {
		op := f.pop(ops)
		require.NotNil(t, op)
		require.False(t, seen[op.idx], "record %d popped twice", op.idx)
		seen[op.idx] = true
	}
	require.Nil(t, f.pop(ops))
}
