package feature

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

func TestErrUnsupported(t *testing.T) {
	require.ErrorIs(t, ErrUnsupported, errors.ErrUnsupported)
	err := unsupported("opcode %s: %w", "X", errors.New("inner"))
	require.ErrorIs(t, err, ErrUnsupported)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.Equal(t, "io_uring: unsupported operation: opcode X: inner", err.Error())
	require.True(t, isUnsupported(fmt.Errorf("wrapped: %w", err)))
	require.False(t, isUnsupported(errors.New("other")))
}

func TestCompareRelease(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"6.18.44-fc-v782", "6.18", 1},
		{"6.18", "6.18.0", 0},
		{"6.9", "6.18", -1},
		{"6.18.44-fc", "6.19", -1},
		{"7.0-rc1", "6.19", 1},
		{"5.15.0-91-generic", "5.15", 0},
		{"6.1", "6.1", 0},
		{"10.0", "9.99", 1},
	} {
		got, err := compareRelease(c.a, c.b)
		require.NoError(t, err, "%s vs %s", c.a, c.b)
		require.Equal(t, c.want, got, "%s vs %s", c.a, c.b)
	}
	_, err := compareRelease("", "6.1")
	require.Error(t, err)
	_, err = compareRelease("6.1", "linux")
	require.ErrorContains(t, err, `"linux"`)
}

func TestCacheKeepsOnlyFinalAnswers(t *testing.T) {
	var c cache[int]
	calls := 0
	failed := errors.New("probe failed")
	probe := func() error { calls++; return notFinal(failed) }
	require.Same(t, failed, c.get(1, probe), "the transient mark is stripped")
	require.Same(t, failed, c.get(1, probe))
	require.Equal(t, 2, calls, "a failed probe is asked again")

	no := unsupported("x")
	calls = 0
	for i := 0; i < 3; i++ {
		require.Same(t, no, c.get(2, func() error { calls++; return no }))
		require.Nil(t, c.get(3, func() error { calls++; return nil }))
	}
	require.Equal(t, 2, calls, "yes and no are asked once")
	c.reset()
	require.Nil(t, c.get(2, func() error { return nil }), "reset forgets")
	require.Same(t, failed, unwrapTransient(notFinal(failed)))
	require.Equal(t, failed.Error(), notFinal(failed).Error())
}

func TestSinceTables(t *testing.T) {
	for _, f := range sys.FeatureList {
		require.NotEmpty(t, FeatureSince(f), "%v", f)
	}
	require.Equal(t, "6.15", FeatureSince(sys.FeatNoIOWait))
	require.Equal(t, "", FeatureSince(sys.FeatSingleMmap|sys.FeatNoDrop))
	for f := sys.EnterGetEvents; f <= sys.EnterNoIOWait; f <<= 1 {
		require.NotEmpty(t, EnterFlagSince(f), "%v", f)
	}
	require.Equal(t, "", EnterFlagSince(1<<8))
}
