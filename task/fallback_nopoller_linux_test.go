//go:build linux

package task

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/task/internal/fallback"
)

// Where there is no poller (Windows), a fallback executor parks on its
// wake channel and its timers: tasks that sleep, talk over channels, run
// blocking calls and are started from other goroutines all complete, and a
// context deadline ends a sleep. Run here with the poller left out.
func TestFallbackWithoutPoller(t *testing.T) {
	fallback.NoPoller = true
	ex, err := NewExecutor(WithoutIOUring())
	fallback.NoPoller = false
	require.NoError(t, err)
	defer func() { require.NoError(t, ex.Close()) }()
	require.False(t, fbOf(ex).HasPoller())

	schedulerWorkload(t, ex)
}
