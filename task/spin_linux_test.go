//go:build linux

package task

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The adaptive spin follows the recent waits: short ones (with ops in
// flight) lengthen it up to twice their average, capped; long ones, waits
// with nothing in flight, WithSpin, or no spare P leave it as configured.
func TestAdaptiveSpin(t *testing.T) {
	// Spare Ps for the test's own decision, whatever GOMAXPROCS it runs at.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(int(runningExecutors.Load()) + 2))
	ex := &Executor{spin: defaultSpin, adaptive: true, busy: 1}
	require.Equal(t, defaultSpin, ex.spinFor(), "no history yet")
	for range 64 {
		ex.noteWait(30 * time.Microsecond)
	}
	require.InDelta(t, float64(60*time.Microsecond), float64(ex.spinFor()), float64(2*time.Microsecond))

	for range 64 {
		ex.noteWait(5 * time.Millisecond) // an idle server's gaps
	}
	require.Equal(t, defaultSpin, ex.spinFor(), "long waits turn it off")
	require.LessOrEqual(t, ex.waitAvg, 10*maxKernelWait, "one long wait weighs at most the cap")

	ex.waitAvg = 30 * time.Microsecond
	ex.busy = 0
	ex.noteWait(time.Second)
	require.Equal(t, 30*time.Microsecond, ex.waitAvg, "a wait with nothing in flight is not counted")

	ex.adaptive = false
	require.Equal(t, defaultSpin, ex.spinFor(), "WithSpin fixes it")

	ex.adaptive = true
	runningExecutors.Add(int32(runtime.GOMAXPROCS(0)))
	defer runningExecutors.Add(-int32(runtime.GOMAXPROCS(0)))
	require.Equal(t, defaultSpin, ex.spinFor(), "no spare P: no longer spin")
}
