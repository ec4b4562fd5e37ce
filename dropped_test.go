//go:build linux

package uring_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/tests/ringtest"
)

// Dropped counts the submissions the kernel skipped as invalid (an SQ
// index past the SQ's end): one here, which posts no CQE; the next NOP
// through a sound index completes.
func TestDroppedCountsSkippedSubmissions(t *testing.T) {
	r := ringtest.New(t, 8)
	require.Zero(t, r.Dropped())
	slot := uring.NextSQSlot(r)
	uring.SetSQIndex(r, slot, 8)
	s, err := r.GetSQE()
	require.NoError(t, err)
	sqe.Nop(s)
	_, err = r.Submit()
	require.NoError(t, err)
	require.Equal(t, uint32(1), r.Dropped())
	require.Zero(t, r.CQReady(), "no CQE for a dropped submission")

	uring.SetSQIndex(r, slot, slot) // sound again
	s, err = r.GetSQE()
	require.NoError(t, err)
	sqe.Nop(s)
	s.UserData = 42
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	c, err := r.WaitCQE()
	require.NoError(t, err)
	require.Equal(t, uint64(42), c.UserData)
	r.CQESeen(c)
	require.Equal(t, uint32(1), r.Dropped())
}
