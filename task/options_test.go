package task

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
)

// TestExecutorOptionErrors: every bad option argument is an *OptionError
// (the library's one, uring.OptionError) that names the option and the
// argument, unwraps to EINVAL, and starts no executor; NewRuntime reports
// it the same way.
func TestExecutorOptionErrors(t *testing.T) {
	for _, c := range []struct {
		opt    Option
		option string
		arg    string
	}{
		{WithEntries(0), "WithEntries", "n = 0"},
		{WithEntries(uring.MaxEntries + 1), "WithEntries", "n = 32769"},
		{WithRingOptions(nil), "WithRingOptions", "opts[0] is nil"},
		{WithRingOptions(uring.WithClamp(), nil), "WithRingOptions", "opts[1] is nil"},
		{WithSpin(-time.Microsecond), "WithSpin", "d = -1µs"},
		{WithCloseWait(-time.Second), "WithCloseWait", "d = -1s"},
		{nil, "NewExecutor", "is nil"},
	} {
		opts := append(backendOpts(), WithEntries(8), c.opt)
		if c.opt == nil {
			c.arg = fmt.Sprintf("opts[%d] is nil", len(opts)-1)
		}
		ex, err := NewExecutor(opts...)
		require.Nil(t, ex, c.option)
		var oe *OptionError
		require.ErrorAs(t, err, &oe)
		require.Equal(t, c.option, oe.Option)
		require.Contains(t, oe.Reason, c.arg)
		require.Contains(t, err.Error(), c.option)
		require.ErrorIs(t, err, syscall.EINVAL)
		var uoe *uring.OptionError
		require.True(t, errors.As(err, &uoe), "task's option error is uring.OptionError")

		rt, err := NewRuntime(2, opts...)
		require.Nil(t, rt, c.option)
		require.ErrorAs(t, err, &oe)
		require.Equal(t, c.option, oe.Option)
	}
}

// TestExecutorOptionEdges: the edges of each checked option's range are
// accepted: one SQ entry, no spin, no close wait.
func TestExecutorOptionEdges(t *testing.T) {
	ex, err := NewExecutor(append(backendOpts(), WithEntries(1), WithSpin(0), WithCloseWait(0))...)
	if errors.Is(err, uring.ErrUnsupported) {
		t.Skipf("io_uring unavailable: %v", err)
	}
	require.NoError(t, err)
	require.Zero(t, ex.closeWait)
	require.NoError(t, ex.Close())
}
