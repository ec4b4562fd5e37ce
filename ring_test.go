//go:build linux

package uring_test

import (
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"path/filepath"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestNopRoundTripsAtBatchSizes(t *testing.T) {
	r := ringtest.New(t, 128)
	for _, batch := range []int{1, 8, 32, 128} {
		for round := 0; round < 10; round++ {
			for i := 0; i < batch; i++ {
				nop(t, r, uint64(batch*1000+i))
			}
			n, err := r.SubmitAndWait(uint32(batch))
			require.NoError(t, err)
			require.Equal(t, batch, n)
			cqes := reapAll(t, r, batch)
			seen := map[uint64]bool{}
			for _, c := range cqes {
				require.Equal(t, int32(0), c.Res)
				require.False(t, seen[c.UserData], "user_data %d twice", c.UserData)
				seen[c.UserData] = true
			}
			for i := 0; i < batch; i++ {
				require.True(t, seen[uint64(batch*1000+i)])
			}
		}
	}
}

func TestWriteThenReadBackFile(t *testing.T) {
	r := ringtest.New(t, 8)
	f, err := os.Create(filepath.Join(t.TempDir(), "data"))
	require.NoError(t, err)
	defer f.Close()
	want := []byte("hello from the raw ring, through io_uring")

	s, err := r.GetSQE()
	require.NoError(t, err)
	s.Opcode, s.Fd, s.Addr, s.Len, s.Off, s.UserData = sys.OpWrite, int32(f.Fd()), sys.SliceAddr(want), uint32(len(want)), 0, 1
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	c, err := r.WaitCQE()
	require.NoError(t, err)
	require.Equal(t, int32(len(want)), c.Res)
	r.CQESeen(c)

	got := make([]byte, 64)
	s, err = r.GetSQE()
	require.NoError(t, err)
	s.Opcode, s.Fd, s.Addr, s.Len, s.Off, s.UserData = sys.OpRead, int32(f.Fd()), sys.SliceAddr(got), uint32(len(got)), 0, 2
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	c, err = r.WaitCQE()
	require.NoError(t, err)
	require.Equal(t, uint64(2), c.UserData)
	require.Equal(t, int32(len(want)), c.Res, "short read returns the count")
	r.CQESeen(c)
	require.Equal(t, want, got[:len(want)])

	onDisk, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	require.Equal(t, want, onDisk)
}

func TestSQFullHandsOutExactlyItsSize(t *testing.T) {
	r := ringtest.New(t, 16)
	require.Equal(t, uint32(16), r.SQEntries())
	for i := 0; i < 16; i++ {
		nop(t, r, uint64(i))
	}
	require.Equal(t, uint32(0), r.SQSpace())
	_, err := r.GetSQE()
	require.ErrorIs(t, err, uring.ErrSQFull)
	require.Equal(t, uint32(16), r.SQReady())
	n, err := r.Submit()
	require.NoError(t, err)
	require.Equal(t, 16, n)
	require.Equal(t, uint32(16), r.SQSpace())
	cqes := reapAll(t, r, 16)
	for i, c := range cqes {
		require.Equal(t, uint64(i), c.UserData, "NOPs complete in order")
	}
}

func TestSubmitNothingReturnsZero(t *testing.T) {
	r := ringtest.New(t, 4)
	n, err := r.Submit()
	require.NoError(t, err)
	require.Equal(t, 0, n)
}

func TestBatchWithBadSQEReportsPartialCount(t *testing.T) {
	r := ringtest.New(t, 8)
	nop(t, r, 1)
	s, err := r.GetSQE()
	require.NoError(t, err)
	s.Opcode = sys.Op(250) // no such opcode: fails to prepare
	s.UserData = 2
	nop(t, r, 3)
	n, err := r.Submit()
	require.NoError(t, err)
	require.Equal(t, 2, n, "the kernel stops the batch after the bad SQE and counts it")
	require.Equal(t, uint32(1), r.SQReady(), "the SQE after it waits")
	n, err = r.Submit()
	require.NoError(t, err)
	require.Equal(t, 1, n)
	got := map[uint64]int32{}
	for _, c := range reapAll(t, r, 3) {
		_, dup := got[c.UserData]
		require.False(t, dup)
		got[c.UserData] = c.Res
	}
	require.Equal(t, map[uint64]int32{1: 0, 2: -int32(unix.EINVAL), 3: 0}, got)
}

func TestCQOverflowBurstDeliversEveryCQEOnce(t *testing.T) {
	r := ringtest.New(t, 16, uring.WithCQSize(16))
	const total = 160 // 10x the CQ
	sawOverflow := false
	for sent := 0; sent < total; {
		for i := 0; i < 16; i++ {
			nop(t, r, uint64(sent))
			sent++
		}
		_, err := r.Submit()
		require.NoError(t, err)
		if r.SQFlags()&sys.SQCQOverflow != 0 {
			sawOverflow = true
		}
	}
	require.True(t, sawOverflow, "IORING_SQ_CQ_OVERFLOW was never set")
	seen := make([]int, total)
	for _, c := range reapAll(t, r, total) {
		require.Less(t, c.UserData, uint64(total))
		seen[c.UserData]++
	}
	for ud, n := range seen {
		require.Equal(t, 1, n, "user_data %d delivered %d times", ud, n)
	}
	require.Zero(t, r.SQFlags()&sys.SQCQOverflow)
	require.Zero(t, r.Overflow(), "FEAT_NODROP kernels drop nothing")
}

func TestCleanupClosesRingNeverClosed(t *testing.T) {
	before := testutil.Take()
	func() {
		r, err := uring.New(8)
		require.NoError(t, err)
		_ = r
	}()
	require.Empty(t, testutil.Leaked(before), "the cleanup should close the fd and unmap the rings")
}

func TestNoMmapRing(t *testing.T) {
	r := ringtest.New(t, 8, uring.WithNoMmap())
	require.NotZero(t, r.Params().CQOff.UserAddr)
	for i := 0; i < 20; i++ {
		nop(t, r, uint64(i))
		_, err := r.SubmitAndWait(1)
		require.NoError(t, err)
		c := reapAll(t, r, 1)[0]
		require.Equal(t, uint64(i), c.UserData)
	}
}

func TestNoSQArrayRing(t *testing.T) {
	r := ringtest.New(t, 8, uring.WithNoSQArray())
	for i := 0; i < 40; i++ { // wraps the SQ several times
		nop(t, r, uint64(i))
		_, err := r.SubmitAndWait(1)
		require.NoError(t, err)
		require.Equal(t, uint64(i), reapAll(t, r, 1)[0].UserData)
	}
}

func TestSQE128Ring(t *testing.T) {
	r := ringtest.New(t, 4, uring.WithSQE128())
	for i := 0; i < 10; i++ {
		s, err := r.GetSQE128()
		require.NoError(t, err)
		require.Equal(t, [64]byte{}, s.Cmd)
		s.Cmd[0] = 0xff // dirty it; the next hand-out of this slot zeroes it
		s.Opcode, s.UserData = sys.OpNop, uint64(i)
		_, err = r.SubmitAndWait(1)
		require.NoError(t, err)
		require.Equal(t, uint64(i), reapAll(t, r, 1)[0].UserData)
	}
	plain := ringtest.New(t, 4)
	_, err := plain.GetSQE128()
	require.Error(t, err)
}

func TestCQE32RingCarriesExtras(t *testing.T) {
	r := ringtest.New(t, 4, uring.WithCQE32()) // 5.19
	// NOP with IORING_NOP_CQE32 (6.18) echoes off and addr into big_cqe.
	testutil.Require(t, uring.CheckCapability(uring.CapNopCQE32))
	s, err := r.GetSQE()
	require.NoError(t, err)
	s.Opcode, s.UserData, s.OpFlags = sys.OpNop, 9, sys.NopCQE32
	s.Off, s.Addr = 0x1111, 0x2222 // big_cqe = {off, addr}
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	var out [1]sys.CQE32
	require.Equal(t, 1, r.Reap32(out[:]))
	require.Equal(t, uint64(9), out[0].UserData)
	require.Equal(t, int32(0), out[0].Res)
	require.Equal(t, [2]uint64{0x1111, 0x2222}, out[0].BigCQE)
}

func TestCQEMixedRing(t *testing.T) {
	r := ringtest.New(t, 8, uring.WithCQEMixed())
	// Alternate 16- and 32-byte CQEs, enough to wrap the CQ (16 slots).
	for i := 0; i < 40; i++ {
		s, err := r.GetSQE()
		require.NoError(t, err)
		s.Opcode, s.UserData = sys.OpNop, uint64(i)
		if i%2 == 1 {
			s.OpFlags, s.Off, s.Addr = sys.NopCQE32, uint64(i), uint64(i)*10
		}
		_, err = r.SubmitAndWait(1)
		require.NoError(t, err)
		var out [1]sys.CQE32
		require.Equal(t, 1, r.Reap32(out[:]))
		c := out[0]
		require.Equal(t, uint64(i), c.UserData)
		require.Equal(t, int32(0), c.Res)
		if i%2 == 1 {
			require.NotZero(t, c.Flags&sys.CQEF32)
			require.Equal(t, [2]uint64{uint64(i), uint64(i) * 10}, c.BigCQE)
		} else {
			require.Zero(t, c.Flags&sys.CQEF32)
			require.Equal(t, [2]uint64{}, c.BigCQE)
		}
	}
}

func TestDisabledRingEnable(t *testing.T) {
	r := ringtest.New(t, 4, uring.WithDisabled())
	nop(t, r, 1)
	_, err := r.Submit()
	require.ErrorIs(t, err, unix.EBADFD, "a disabled ring refuses submissions")
	require.NoError(t, r.Enable())
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	require.Equal(t, uint64(1), reapAll(t, r, 1)[0].UserData)
}

func TestAttachWQ(t *testing.T) {
	a := ringtest.New(t, 4)
	b := ringtest.New(t, 4, uring.WithAttachWQ(a))
	nop(t, b, 5)
	_, err := b.SubmitAndWait(1)
	require.NoError(t, err)
	require.Equal(t, uint64(5), reapAll(t, b, 1)[0].UserData)
}

func TestPeekBatchAcrossTheWrap(t *testing.T) {
	r := ringtest.New(t, 8, uring.WithCQSize(8))
	next := uint64(0)
	for round := 0; round < 5; round++ {
		for i := 0; i < 5; i++ {
			nop(t, r, next+uint64(i))
		}
		_, err := r.SubmitAndWait(5)
		require.NoError(t, err)
		for got := 0; got < 5; {
			batch := r.PeekBatch()
			require.NotEmpty(t, batch)
			for _, c := range batch {
				require.Equal(t, next, c.UserData)
				next++
			}
			got += len(batch)
			r.Advance(uint32(len(batch)))
		}
		require.Nil(t, r.PeekBatch())
	}
	t.Run("CQE32", func(t *testing.T) {
		big := ringtest.New(t, 4, uring.WithCQE32()) // 5.19
		nop(t, big, 1)
		_, err := big.SubmitAndWait(1)
		require.NoError(t, err)
		require.Nil(t, big.PeekBatch(), "32-byte CQEs need Reap32")
	})
}
