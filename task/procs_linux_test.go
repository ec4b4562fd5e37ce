//go:build linux

package task

import (
	"runtime"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

// procsLive is how many running executors count in GOMAXPROCS.
func procsLive() int {
	procs.mu.Lock()
	defer procs.mu.Unlock()
	return procs.live
}

// startExec starts an executor that the test closes itself, in its order.
func startExec(t *testing.T, opts ...Option) *Executor {
	t.Helper()
	ex, err := NewExecutor(append(backendOpts(), opts...)...)
	require.NoError(t, err)
	return ex
}

// Running executors keep GOMAXPROCS one above their number, give back
// only what they raised, and leave a value the program set alone.
func TestExecutorsLeaveAPForGoroutines(t *testing.T) {
	fromEnv(t, false)   // as if GOMAXPROCS were not in the environment (CI runs a step with it)
	base := procsLive() // executors of other tests still running (none, normally)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(base + 2))

	a := startExec(t)
	require.Equal(t, base+2, runtime.GOMAXPROCS(0), "one executor more leaves a P without a raise")
	b := startExec(t)
	require.Equal(t, base+3, runtime.GOMAXPROCS(0), "two executors more: raised to keep a P for goroutines")
	c := startExec(t, WithGOMAXPROCSUnchanged())
	require.Equal(t, base+3, runtime.GOMAXPROCS(0), "an executor with WithGOMAXPROCSUnchanged is not counted")
	require.Equal(t, base+2, procsLive())
	require.NoError(t, c.Close())
	require.Equal(t, base+3, runtime.GOMAXPROCS(0))
	require.NoError(t, b.Close())
	require.Equal(t, base+2, runtime.GOMAXPROCS(0), "the raise is given back")
	require.NoError(t, a.Close())
	require.Equal(t, base+2, runtime.GOMAXPROCS(0), "never below the program's own value")
	require.Equal(t, base, procsLive())

	// The program sets GOMAXPROCS while the package's raise stands: its
	// value stays after the executors close.
	a, b = startExec(t), startExec(t)
	require.Equal(t, base+3, runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(base + 8)
	require.NoError(t, b.Close())
	require.NoError(t, a.Close())
	require.Equal(t, base+8, runtime.GOMAXPROCS(0), "the program's value was lowered")
	require.Equal(t, base, procsLive())
}

// An executor whose ring fails to start takes its count back.
func TestExecutorStartFailureReleasesItsP(t *testing.T) {
	requireRing(t) // ring options apply to the io_uring backend only
	fromEnv(t, false)
	base := procsLive()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(base + 1))
	_, err := NewExecutor(WithRingOptions(uring.WithFlags(sys.SetupFlags(1) << 30)))
	require.Error(t, err)
	require.Equal(t, base, procsLive(), "a failed start still counts")
	require.Equal(t, base+1, runtime.GOMAXPROCS(0), "a failed start kept its raise")
}

// fromEnv sets, for the test, whether GOMAXPROCS counts as set in the
// environment.
func fromEnv(t *testing.T, set bool) {
	old := gomaxprocsFromEnv
	gomaxprocsFromEnv = set
	t.Cleanup(func() { gomaxprocsFromEnv = old })
}

// With GOMAXPROCS in the environment the executors are counted and
// nothing is raised.
func TestExecutorsKeepGOMAXPROCSFromTheEnvironment(t *testing.T) {
	fromEnv(t, true)
	base := procsLive()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(base + 1))
	a, b := startExec(t), startExec(t)
	require.Equal(t, base+2, procsLive())
	require.Equal(t, base+1, runtime.GOMAXPROCS(0), "raised against the environment's value")
	require.NoError(t, b.Close())
	require.NoError(t, a.Close())
	require.Equal(t, base+1, runtime.GOMAXPROCS(0))
	require.Equal(t, base, procsLive())
}
