//go:build linux

package poll

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
)

// TestGenerationWrap runs operations through slots whose generation sits
// at the top of its 23 bits, so it wraps to 0 and on: every result is
// delivered to its own handler once, and a CQE forged with a token from
// before the wrap is counted stale instead of reaching the slot's new
// owner.
func TestGenerationWrap(t *testing.T) {
	testutil.Require(t, uring.CheckCapability(uring.CapNopInjectResult))
	l := newLoop(t)
	require.NoError(t, l.Run(func() {
		for i := range l.c.slots {
			l.c.slots[i].gen = slotGenMask - 1 // free (even), one take from the top
		}
	}))
	var toks []Token
	for i := range 6 {
		done := make(chan int32, 1)
		var err error
		require.NoError(t, l.Run(func() {
			var tok Token
			tok, err = l.Prep(HandlerFunc(func(c *sys.CQE) { done <- c.Res }), func(s *sys.SQE) error {
				*s = sys.SQE{Opcode: sys.OpNop, Fd: -1, Len: uint32(i) + 1}
				s.OpFlags = uint32(sys.NopInjectResult)
				return nil
			})
			toks = append(toks, tok)
		}))
		require.NoError(t, err)
		select {
		case res := <-done:
			require.Equal(t, int32(i)+1, res, "op %d", i)
		case <-time.After(time.Minute): // a hang guard
			t.Fatalf("op %d never completed", i)
		}
	}
	// The free list hands the same slot out again: its generations ran
	// 0x7fffff, 1, 3, ... across the wrap, never 0 (0 is "free").
	require.Equal(t, uint32(slotGenMask), uint32(uint64(toks[0])>>genShift))
	for i, tok := range toks {
		require.Equal(t, uint32(toks[0]), uint32(tok), "op %d used another slot", i)
		if i > 0 {
			require.Equal(t, uint32(2*i-1), uint32(uint64(tok)>>genShift), "generation of op %d", i)
		}
	}

	// A new op in flight on that slot; CQEs with every old token arrive.
	var calls int
	var err, ferr error
	var live Token
	require.NoError(t, l.Run(func() {
		live, err = l.Prep(HandlerFunc(func(*sys.CQE) { calls++ }), func(s *sys.SQE) error {
			*s = sys.SQE{Opcode: sys.OpRead, Fd: -1} // fails with EBADF: one CQE
			return nil
		})
		for _, old := range toks {
			var s *sys.SQE
			if s, ferr = l.ring.GetSQE(); ferr != nil {
				return
			}
			*s = sys.SQE{Opcode: sys.OpNop, Fd: -1, UserData: uint64(old)}
		}
	}))
	require.NoError(t, err)
	require.NoError(t, ferr)
	require.Equal(t, uint32(toks[0]), uint32(live))
	require.Eventually(t, func() bool { return l.Stats().Stale == uint64(len(toks)) }, time.Minute, time.Millisecond)
	require.Eventually(t, func() bool { return l.Stats().InFlight == 0 }, time.Minute, time.Millisecond)
	var got int
	require.NoError(t, l.Run(func() { got = calls }))
	require.Equal(t, 1, got, "only the live op's own CQE reached its handler")
}
