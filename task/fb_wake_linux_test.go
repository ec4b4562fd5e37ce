//go:build linux

package task

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/task/internal/fallback"
)

// A fallback executor's park has no bound: it lasts until a wake, a ready
// fd or the next timer. These tests count the parks that nothing but the
// test's own rescue ended (a lost wakeup), which must be none. (The wake
// of a park in each window of the netpoller is tested in
// task/internal/fallback.)

// newFallbackExec starts a fallback executor, without a poller when
// noPoller is set (it parks on its wake channel, as on Windows).
func newFallbackExec(t *testing.T, noPoller bool) *Executor {
	t.Helper()
	fallback.NoPoller = noPoller
	ex, err := NewExecutor(WithoutIOUring())
	fallback.NoPoller = false
	require.NoError(t, err)
	return ex
}

// waitFor polls cond (safe from any goroutine) until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "never: %s", what)
		time.Sleep(20 * time.Microsecond)
	}
}

// A Close posted while the executor runs what its loop drained (a Do's
// function here) is taken by the drain at the start of its next poll,
// which then found nothing runnable and parked: the post was taken, so
// none was left to wake the park, and Close waited for a shutdown that
// only a bound on the park could start. The executor must never park
// once it took the close: with no task and no blocking call left it
// stops without parking, so a park seen after the release (sleep state
// parked, work flag down) is this loss, counted and rescued.
func TestFallbackCloseTakenByPollStops(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 50
	}
	lost := [2]int{}
	for i, noPoller := range []bool{false, true} {
		for range rounds {
			ex := newFallbackExec(t, noPoller)
			waitFor(t, "the new executor parked", func() bool { return fbOf(ex).SleepState() != 0 })
			release, held := make(chan struct{}), make(chan struct{})
			go func() { _ = ex.Do(func() { close(held); <-release }) }()
			within(t, held, "the Do never ran")
			closed := make(chan error, 1)
			go func() { closed <- ex.Close() }()
			// The Do holds the executor: Close's post waits, work flag up.
			waitFor(t, "Close posted", fbOf(ex).HasWork)
			close(release)
			parked := false
			waitFor(t, "Close returned or the executor parked", func() bool {
				select {
				case err := <-closed:
					require.NoError(t, err)
					return true
				default:
				}
				parked = fbOf(ex).Parked()
				return parked
			})
			if parked {
				lost[i]++
				fbOf(ex).Rescue()
				require.NoError(t, within(t, closed, "Close never returned, even after a rescue"))
			}
		}
	}
	require.Equal(t, [2]int{}, lost, "executors that parked with their close taken (poller, no poller), of %d each", rounds)
}
