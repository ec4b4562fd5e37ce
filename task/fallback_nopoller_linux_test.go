//go:build linux

package task

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Where there is no poller (Windows), a fallback executor parks on its
// wake channel and its timers: tasks that sleep, talk over channels, run
// blocking calls and are started from other goroutines all complete, and a
// context deadline ends a sleep. Run here with the poller left out.
func TestFallbackWithoutPoller(t *testing.T) {
	fbNoPoller = true
	ex, err := NewExecutor(WithoutIOUring())
	fbNoPoller = false
	require.NoError(t, err)
	defer func() { require.NoError(t, ex.Close()) }()
	require.Nil(t, ex.fb.p)

	schedulerWorkload(t, ex)
}
