package testutil

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A rerun's -test.timeout is what the run has left, less a margin; none
// is left: no rerun; other arguments pass unchanged.
func TestRerunArgs(t *testing.T) {
	got, ok := rerunArgs([]string{"-test.v", "-test.timeout=8m0s", "-test.run", "X"}, 3*time.Minute)
	require.True(t, ok)
	require.Equal(t, []string{"-test.v", "-test.timeout=4m50s", "-test.run", "X"}, got)
	got, ok = rerunArgs([]string{"-test.timeout", "1m"}, 10*time.Second)
	require.True(t, ok)
	require.Equal(t, []string{"-test.timeout=40s"}, got)
	_, ok = rerunArgs([]string{"-test.timeout=1m"}, 40*time.Second)
	require.False(t, ok)
	got, ok = rerunArgs([]string{"-test.timeout=0s", "-test.count=1"}, time.Hour)
	require.True(t, ok)
	require.Equal(t, []string{"-test.timeout=0s", "-test.count=1"}, got)
}
