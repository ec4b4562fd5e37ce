//go:build linux

package uring_test

import (
	"github.com/pure-uring/uring/tests/ringtest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// GetSQEs hands out a zeroed batch, contiguous up to the end of the SQ
// array; the rest comes from the next call, and a full SQ is ErrSQFull.
func TestGetSQEs(t *testing.T) {
	r, err := uring.New(8) // a fresh SQ, its tail at 0 (ringtest's rings have sent requests)
	require.NoError(t, err)
	defer r.Close()
	// Move the tail to 6: the next batch wraps after 2.
	for i := 0; i < 6; i++ {
		s, err := r.GetSQE()
		require.NoError(t, err)
		sqe.Nop(s)
		s.UserData = 0xdead // dirty the slot: GetSQEs must zero it
	}
	_, err = r.SubmitAndWait(6)
	require.NoError(t, err)
	r.Advance(r.CQReady())

	batch, err := r.GetSQEs(8)
	require.NoError(t, err)
	require.Len(t, batch, 2, "up to the end of the array")
	rest, err := r.GetSQEs(8)
	require.NoError(t, err)
	require.Len(t, rest, 6, "the rest of the free SQEs, from the array's start")
	for i := range rest {
		require.Equal(t, sys.SQE{}, rest[i], "SQE %d zeroed", i)
	}
	_, err = r.GetSQEs(1)
	require.ErrorIs(t, err, uring.ErrSQFull)
	for i := range batch {
		sqe.Nop(&batch[i])
		batch[i].UserData = uint64(i + 1)
	}
	for i := range rest {
		sqe.Nop(&rest[i])
		rest[i].UserData = uint64(len(batch) + i + 1)
	}
	n, err := r.SubmitAndWait(8)
	require.NoError(t, err)
	require.Equal(t, 8, n)
	seen := map[uint64]bool{}
	for b := r.PeekBatch(); len(b) > 0; b = r.PeekBatch() {
		for _, c := range b {
			require.Zero(t, c.Res)
			seen[c.UserData] = true
		}
		r.Advance(uint32(len(b)))
	}
	require.Len(t, seen, 8)

	got, err := r.GetSQEs(0)
	require.NoError(t, err)
	require.Empty(t, got)
	allocs := testing.AllocsPerRun(100, func() {
		b, err := r.GetSQEs(4)
		if err != nil {
			panic(err)
		}
		for i := range b {
			sqe.Nop(&b[i])
		}
		if _, err := r.SubmitAndWait(uint32(len(b))); err != nil {
			panic(err)
		}
		r.Advance(r.CQReady())
	})
	require.Zero(t, allocs)
}

func TestGetSQEsRefusesSQE128(t *testing.T) {
	r := ringtest.New(t, 8, uring.WithSQE128())
	_, err := r.GetSQEs(2)
	var oe *uring.OptionError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "GetSQEs", oe.Option)
}
