//go:build linux

package poll

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// batchReads is a BatchHandler for a batch of 8-byte reads: SQE i reads
// bufs[i] at offset 8*i; each CQE's index and result are recorded, and
// done is closed when want CQEs are in.
type batchReads struct {
	fd   int
	bufs [][8]byte
	res  map[int][]int32 // index → results, in arrival order
	want int
	done chan struct{}
}

func newBatchReads(fd, n, want int) *batchReads {
	return &batchReads{fd: fd, bufs: make([][8]byte, n), res: map[int][]int32{}, want: want, done: make(chan struct{})}
}

func (b *batchReads) prep(i int, s *sys.SQE) error {
	return sqe.Read(s, b.fd, b.bufs[i][:], int64(8*i))
}

func (b *batchReads) HandleBatch(i int, c *sys.CQE) {
	b.res[i] = append(b.res[i], c.Res)
	if b.want--; b.want == 0 {
		close(b.done)
	}
}

// numberedFile holds n 8-byte records, record i reading "rec%05d"-like
// bytes unique to i.
func numberedFile(t *testing.T, n int) int {
	t.Helper()
	data := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		copy(data[8*i:], record(i))
	}
	path := filepath.Join(t.TempDir(), "records")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return rawFd(t, f)
}

func record(i int) []byte {
	return []byte{'r', 'e', 'c', byte('0' + i/1000%10), byte('0' + i/100%10), byte('0' + i/10%10), byte('0' + i%10), '\n'}
}

// perSQE makes a run-filling prep of a per-SQE one.
func perSQE(f func(i int, s *sys.SQE) error) func(int, []sys.SQE) error {
	if f == nil {
		return nil
	}
	return func(i int, run []sys.SQE) error {
		for k := range run {
			if err := f(i+k, &run[k]); err != nil {
				return err
			}
		}
		return nil
	}
}

// prepBatch runs PrepBatch on the loop thread, with a per-SQE prep.
func prepBatch(t *testing.T, l *Loop, h BatchHandler, n int, prep func(int, *sys.SQE) error) (Token, int, error) {
	t.Helper()
	var (
		tok Token
		k   int
		err error
	)
	require.NoError(t, l.Run(func() { tok, k, err = l.PrepBatch(h, n, perSQE(prep)) }))
	return tok, k, err
}

func inFlight(l *Loop) int { return l.Stats().InFlight }

// TestPrepBatchReadsEachIndexOnce: every SQE of a batch completes once to
// the batch's handler with its own index, having read its own record; the
// batch's slot is free afterwards. Batches past the SQ's size (8 entries)
// are taken a run at a time with submits between them.
func TestPrepBatchReadsEachIndexOnce(t *testing.T) {
	for _, n := range []int{1, 7, 8, 100, MaxBatch} {
		t.Run("n="+strconv.Itoa(n), func(t *testing.T) {
			fd := numberedFile(t, MaxBatch)
			l := newLoop(t, WithEntries(8))
			b := newBatchReads(fd, n, n)
			tok, k, err := prepBatch(t, l, b, n, b.prep)
			require.NoError(t, err)
			require.Equal(t, n, k)
			require.NotZero(t, tok)
			<-b.done
			require.Len(t, b.res, n)
			for i := 0; i < n; i++ {
				require.Equal(t, []int32{8}, b.res[i], "SQE %d", i)
				require.Equal(t, record(i), b.bufs[i][:], "SQE %d", i)
			}
			require.Zero(t, inFlight(l), "the batch's slot is freed by its last CQE")
			require.Equal(t, uint64(n), l.Stats().Completed)
		})
	}
}

// TestPrepBatchPrepFailureStopsThere: a prep that fails on the run
// holding SQE 12 stops the batch at that run's start (k): SQEs 0..k-1 go
// ahead and complete, the error names the run and wraps prep's, and
// nothing more reaches the handler. An 8-entry SQ makes runs of at most 8
// (where they split depends on the SQEs the loop took before).
func TestPrepBatchPrepFailureStopsThere(t *testing.T) {
	fd := numberedFile(t, 20)
	l := newLoop(t, WithEntries(8))
	b := newBatchReads(fd, 20, 0)
	boom := errors.New("boom")
	failedAt := -1
	var tok Token
	var k int
	var err error
	require.NoError(t, l.Run(func() {
		tok, k, err = l.PrepBatch(b, 20, func(i int, run []sys.SQE) error {
			if i <= 12 && 12 < i+len(run) {
				failedAt = i
				return boom
			}
			return perSQE(b.prep)(i, run)
		})
		b.want = k // the loop reaps after this function returns
	}))
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "PrepBatch: SQEs "+strconv.Itoa(failedAt)+"..")
	require.Equal(t, failedAt, k)
	require.Positive(t, k, "a run is at most 8 long: SQE 12 is not in the first")
	require.NotZero(t, tok)
	<-b.done
	_, err = l.Do(t.Context(), prepNop) // one more round: nothing else came
	require.NoError(t, err)
	require.NoError(t, l.Run(func() {
		require.Len(t, b.res, k)
		for i := 0; i < k; i++ {
			require.Equal(t, []int32{8}, b.res[i], "SQE %d", i)
		}
	}))
	require.Zero(t, inFlight(l))

	// A failure in the first run frees the slot at once.
	_, k, err = prepBatch(t, l, b, 3, func(int, *sys.SQE) error { return boom })
	require.ErrorIs(t, err, boom)
	require.Zero(t, k)
	require.Zero(t, inFlight(l))
}

// TestPrepBatchBadArguments: each bad argument is refused with an error
// naming it, taking no slot and no SQE.
func TestPrepBatchBadArguments(t *testing.T) {
	l := newLoop(t)
	b := newBatchReads(-1, 1, 1)
	nop := func(_ int, s *sys.SQE) error { sqe.Nop(s); return nil }
	for _, c := range []struct {
		h    BatchHandler
		n    int
		prep func(int, *sys.SQE) error
		want string
	}{
		{nil, 1, nop, "h is nil"},
		{b, 1, nil, "prep is nil"},
		{b, 0, nop, "n = 0"},
		{b, -1, nop, "n = -1"},
		{b, MaxBatch + 1, nop, "n = 257"},
	} {
		_, k, err := prepBatch(t, l, c.h, c.n, c.prep)
		require.ErrorContains(t, err, c.want)
		require.ErrorContains(t, err, "PrepBatch")
		require.Zero(t, k)
		require.Zero(t, inFlight(l))
	}
	require.Zero(t, l.Stats().Submitted, "no SQE taken")
}

// TestPrepBatchCancelOneAndClose: Cancel(t.At(i)) cancels SQE i of a
// batch of pipe reads alone; Close cancels the rest, each to the handler
// once, and the slot is freed.
// With each set, Close cancels request by request (as before 5.19, where
// the kernel refuses CANCEL_ANY): one cancel per SQE of the batch.
func TestPrepBatchCancelOneAndClose(t *testing.T) {
	for _, each := range []bool{false, true} {
		t.Run("each="+strconv.FormatBool(each), func(t *testing.T) { testPrepBatchCancel(t, each) })
	}
}

func testPrepBatchCancel(t *testing.T, each bool) {
	r, _ := testutil.Pipe(t)
	l, err := New()
	require.NoError(t, err)
	b := newBatchReads(r, 4, 1)
	tok, k, err := prepBatch(t, l, b, 4, func(i int, s *sys.SQE) error {
		return sqe.Read(s, r, b.bufs[i][:], -1)
	})
	require.NoError(t, err)
	require.Equal(t, 4, k)
	require.NoError(t, l.Run(func() { require.NoError(t, l.Cancel(tok.At(2))) }))
	<-b.done
	require.Equal(t, map[int][]int32{2: {-int32(unix.ECANCELED)}}, b.res)
	require.Equal(t, 1, inFlight(l), "one slot for the batch")

	if each {
		require.NoError(t, l.Run(func() { l.c.cancelEach = true }))
	}
	require.NoError(t, l.Close())
	require.Len(t, b.res, 4)
	for i := 0; i < 4; i++ {
		require.Len(t, b.res[i], 1, "SQE %d: one CQE", i)
		require.Equal(t, -int32(unix.ECANCELED), b.res[i][0], "SQE %d", i)
	}
	require.Zero(t, l.Stats().InFlight)
}

// TestPrepBatchAfterClose: a closing loop refuses a batch with ErrClosed.
func TestPrepBatchAfterClose(t *testing.T) {
	l := newLoop(t)
	var err error
	done := make(chan struct{})
	b := newBatchReads(-1, 1, 1)
	require.NoError(t, l.Run(func() {
		l.closing = true // as beginClose leaves it, before the loop exits
		_, _, err = l.PrepBatch(b, 1, nopRun)
		l.closing = false
		close(done)
	}))
	<-done
	require.ErrorIs(t, err, uring.ErrClosed)
}

// TestTokenAt: At sets the batch index and keeps slot and generation;
// an index out of range gives 0 (no operation), not another SQE.
func TestTokenAt(t *testing.T) {
	tok := token(12345, 7)
	require.Equal(t, tok, tok.At(0))
	a := tok.At(200)
	require.Equal(t, uint64(12345), uint64(a)&0xffffffff)
	require.Equal(t, uint64(200), uint64(a)>>subShift&0xff)
	require.Equal(t, uint64(7), uint64(a)>>genShift)
	require.Equal(t, tok.At(3), a.At(3))
	for _, i := range []int{-1, MaxBatch, 300} {
		require.Zero(t, tok.At(i), "At(%d) names no operation", i)
	}
}

// batchNops keeps one PrepBatch of NOPs in flight: the last CQE of a
// batch prepares the next, until left reaches 0 (the benchmarks' and the
// allocation test's driver of the batch form).
type batchNops struct {
	l                 *Loop
	n, left, inflight int
	bad               int
	markAt            int // count harness: countMark when left is markAt, and at 0
	done              chan struct{}
	startFn           func() // d.start, made once (a method value allocates)
}

func nopRun(_ int, run []sys.SQE) error {
	for k := range run {
		sqe.Nop(&run[k])
	}
	return nil
}

func (d *batchNops) start() {
	if d.markAt > 0 && (d.left == d.markAt || d.left == 0) {
		countMark()
	}
	if d.left == 0 {
		d.done <- struct{}{}
		return
	}
	k := min(d.n, d.left)
	d.left -= k
	d.inflight = k
	if _, _, err := d.l.PrepBatch(d, k, nopRun); err != nil {
		d.bad++
	}
}

func (d *batchNops) HandleBatch(_ int, c *sys.CQE) {
	if c.Res != 0 {
		d.bad++
	}
	if d.inflight--; d.inflight == 0 {
		d.start()
	}
}

// run drives n NOPs through the loop, in batches, and waits for them.
func (d *batchNops) run(n int) error {
	d.left = n
	if d.startFn == nil {
		d.startFn = d.start
	}
	if err := d.l.Run(d.startFn); err != nil {
		return err
	}
	<-d.done
	return nil
}

// TestPrepBatchForgedIndexIsStale: a CQE naming a batch's slot with an
// index past the batch's size, or a one-op slot with any index but 0, is
// counted stale and reaches no handler.
func TestPrepBatchForgedIndexIsStale(t *testing.T) {
	r, _ := testutil.Pipe(t)
	l := newLoop(t)
	b := newBatchReads(r, 4, 1)
	tok, _, err := prepBatch(t, l, b, 4, func(i int, s *sys.SQE) error {
		return sqe.Read(s, r, b.bufs[i][:], -1)
	})
	require.NoError(t, err)
	var one Token
	var ferr error
	var oneCQEs int // its cancel at Close comes after the checks
	require.NoError(t, l.Run(func() {
		one, ferr = l.Prep(HandlerFunc(func(*sys.CQE) { oneCQEs++ }), func(s *sys.SQE) error {
			return sqe.Read(s, r, make([]byte, 1), -1)
		})
		if ferr != nil {
			return
		}
		for _, ud := range []Token{tok.At(4), tok.At(255), one.At(1)} {
			var s *sys.SQE
			if s, ferr = l.ring.GetSQE(); ferr != nil {
				return
			}
			sqe.Nop(s)
			s.UserData = uint64(ud)
		}
	}))
	require.NoError(t, ferr)
	require.Eventually(t, func() bool { return l.Stats().Stale == 3 }, time.Minute, time.Millisecond)
	require.NoError(t, l.Run(func() {
		require.Empty(t, b.res)
		require.Zero(t, oneCQEs)
	}))
	require.Equal(t, 2, inFlight(l))
}

// TestMaxBatchFillsTheIndexBits: MaxBatch indexes exactly the bits
// between the slot index and the generation.
func TestMaxBatchFillsTheIndexBits(t *testing.T) {
	require.Equal(t, 1<<(genShift-subShift), MaxBatch)
}

// TestPrepBatchUnknownOpcode: a run holding an opcode the kernel lacks is
// refused with an error wrapping uring.ErrUnsupported; the slot is freed.
func TestPrepBatchUnknownOpcode(t *testing.T) {
	l := newLoop(t)
	b := newBatchReads(-1, 2, 2)
	_, k, err := prepBatch(t, l, b, 2, func(i int, s *sys.SQE) error {
		sqe.Nop(s)
		if i == 1 {
			s.Opcode = 250 // past every kernel's last opcode
		}
		return nil
	})
	require.ErrorIs(t, err, uring.ErrUnsupported)
	require.Zero(t, k)
	require.Zero(t, inFlight(l))
	_, err = l.Do(t.Context(), prepNop) // the ignored NOPs went through
	require.NoError(t, err)
	require.NoError(t, l.Run(func() { require.Empty(t, b.res) }))
}
