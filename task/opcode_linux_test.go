//go:build linux

package task

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
)

// Await refuses an opcode the kernel lacks before anything reaches the
// kernel, naming it; the slot is free again and the SQE's link is gone, so
// the next await runs on its own.
func TestAwaitUnknownOpcodeRefused(t *testing.T) {
	requireRing(t)
	op := testutil.MissingOp(t)
	ex := newExec(t)
	var refused, next error
	var busy int
	var res int32
	err := runTask(t, ex, func(tk *T) error {
		_, _, refused = tk.Await(func(s *sys.SQE) {
			s.Opcode, s.Fd, s.Flags = op, 5, sys.SQEIOLink
		})
		busy = tk.ex.busy()
		res, _, next = tk.Await(func(s *sys.SQE) { s.Opcode, s.Fd = sys.OpNop, -1 })
		return nil
	})
	require.NoError(t, err)
	require.ErrorIs(t, refused, uring.ErrUnsupported)
	require.ErrorContains(t, refused, "uring: await fd 5: ")
	require.ErrorContains(t, refused, "opcode "+uring.OpName(op))
	require.Zero(t, busy, "no slot held")
	require.NoError(t, next, "the next SQE is not linked to the refused one")
	require.Equal(t, int32(0), res)
}
