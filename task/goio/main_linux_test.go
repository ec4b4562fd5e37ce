//go:build linux

package goio

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/task"
)

// TestMain runs the package's tests on the io_uring backend, then, in
// child processes, on the fallback backend (URING_TASK_BACKEND=fallback)
// and with the goroutine-side sockets' waits submitted to the ring
// (task.WithRingConnWaits): one suite, every way the adapters wait.
func TestMain(m *testing.M) {
	switch os.Getenv(backendEnv) {
	case "":
	case ringConnsBackend:
		// Only the goroutine-side socket tests, unless -test.run chose.
		if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" {
			_ = f.Value.Set(ringConnTests)
		}
		fallthrough
	default:
		testutil.Main(m)
		return
	}
	code := testutil.RunMain(m)
	if code == 0 {
		code = testutil.RerunWithEnv(backendEnv + "=fallback")
	}
	if code == 0 {
		code = testutil.RerunWithEnv(backendEnv + "=" + ringConnsBackend)
	}
	os.Exit(code)
}

// ringConnsBackend is a third run on io_uring with WithRingConnWaits: the
// goroutine-side sockets' tests (ringConnTests) again, with their waits
// submitted to the ring instead of Go's netpoller.
const ringConnsBackend = "io_uring-ring-conns"

const ringConnTests = `^(TestSyncAndCloseWriteGuarded|TestConn|TestTCPConn|TestListen|TestDial|TestNettestConn|TestNilReceivers|TestPacketConn|TestRealClient|TestNetHTTPOnAdapter|TestFileCopySplice|TestServeTLS|TestTLSClient|TestPortableAdapters|TestEnvCallsFromTaskRefused|Example$)`

// backendEnv selects the backend of the package's executors (the same
// variable as package task's tests).
const backendEnv = "URING_TASK_BACKEND"

// onFallback reports whether the tests run on the fallback backend.
func onFallback() bool { return os.Getenv(backendEnv) == "fallback" }

// backendOpts are the options of the backend the tests run on.
func backendOpts() []task.Option {
	if onFallback() {
		return []task.Option{task.WithoutIOUring()}
	}
	if os.Getenv(backendEnv) == ringConnsBackend {
		return []task.Option{task.WithRingConnWaits()}
	}
	return nil
}

// newRuntime starts a runtime of n executors on the tests' backend,
// closed at the end of the test; it skips when io_uring is unavailable.
func newRuntime(tb testing.TB, n int) *task.Runtime {
	tb.Helper()
	rt, err := task.NewRuntime(n, backendOpts()...)
	if errors.Is(err, uring.ErrUnsupported) {
		tb.Skipf("io_uring unavailable: %v", err)
	}
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, rt.Close()) })
	return rt
}

// pipe returns the fds of a pipe closed at the end of the test.
func pipe(tb testing.TB) (r, w int) { return testutil.Pipe(tb) }

// hangGuard bounds a wait that only a bug makes long (a cancellation or a
// wakeup that never arrives); it is never what a test checks, and it is
// wide enough for a loaded machine or qemu without KVM.
const hangGuard = time.Minute

// within returns what arrives on c; it fails the test, saying what never
// happened, when nothing does within the hang guard.
func within[R any](t *testing.T, c <-chan R, what string) R {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(hangGuard):
		t.Fatal(what)
		panic("unreachable")
	}
}

// sprintErr is err, or, when there is none, an error saying what went
// wrong with n.
func sprintErr(what string, n int, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%s: %d", what, n)
}
