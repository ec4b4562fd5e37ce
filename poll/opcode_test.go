//go:build linux

package poll

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
)

// missingOpOp is an Op whose SQE has an opcode the kernel lacks.
type missingOpOp struct {
	op      sys.Op
	handled int
}

func (o *missingOpOp) Prep(s *sys.SQE) error {
	*s = sys.SQE{Opcode: o.op, Fd: -1, Flags: sys.SQEIOLink}
	return nil
}

func (o *missingOpOp) Handle(*sys.CQE) { o.handled++ }

// An opcode the kernel lacks is refused by Do, Go, Prep and Start before
// anything reaches the kernel, with an error naming it; its SQE becomes an
// ignored NOP without prep's link, so the next operation runs on its own.
func TestUnknownOpcodeRefusedBeforeSubmit(t *testing.T) {
	op := testutil.MissingOp(t)
	l := newLoop(t)
	ctx := context.Background()
	prep := func(s *sys.SQE) error {
		*s = sys.SQE{Opcode: op, Fd: -1, Flags: sys.SQEIOLink}
		return nil
	}
	requireRefused := func(err error) {
		t.Helper()
		require.ErrorIs(t, err, uring.ErrUnsupported)
		require.Contains(t, err.Error(), "opcode "+uring.OpName(op))
	}

	_, err := l.Do(ctx, prep)
	requireRefused(err)
	res, err := l.Do(ctx, prepNop)
	require.NoError(t, err, "the NOP after the refused SQE is not linked to it")
	require.Equal(t, int32(0), res.Res)

	goErr := make(chan error, 1)
	require.NoError(t, l.Go(prep, func(_ Result, err error) { goErr <- err }))
	requireRefused(<-goErr)

	o := &missingOpOp{op: op}
	var prepErr, startErr error
	handled := 0
	require.NoError(t, l.Run(func() {
		_, prepErr = l.Prep(HandlerFunc(func(*sys.CQE) { handled++ }), prep)
		_, startErr = l.Start(o)
	}))
	requireRefused(prepErr)
	requireRefused(startErr)
	_, err = l.Do(ctx, prepNop) // a round trip after the refused SQEs were submitted
	require.NoError(t, err)
	require.Zero(t, handled)
	require.Zero(t, o.handled)
	st := l.Stats()
	require.Zero(t, st.InFlight, "no slot held for a refused SQE")
	require.Zero(t, st.Stale)
}
