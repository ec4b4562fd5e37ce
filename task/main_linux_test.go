//go:build linux

package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
)

// TestMain runs the package's tests on the io_uring backend, then, in a
// child process with URING_TASK_BACKEND=fallback, on the fallback backend:
// one suite, both backends. Tests about io_uring itself (rings,
// registered buffers, SQEs) say so with requireRing. (WithRingConnWaits,
// the third pass of package goio's suite, changes nothing of task's own.)
func TestMain(m *testing.M) {
	if os.Getenv(backendEnv) != "" {
		testutil.Main(m)
		return
	}
	code := testutil.RunMain(m)
	if code == 0 {
		code = testutil.RerunWithEnv(backendEnv + "=fallback")
	}
	os.Exit(code)
}

// backendEnv selects the backend of the package's executors.
const backendEnv = "URING_TASK_BACKEND"

// onFallback reports whether the tests run on the fallback backend.
func onFallback() bool { return os.Getenv(backendEnv) == "fallback" }

// backendOpts are the options of the backend the tests run on.
func backendOpts() []Option {
	if onFallback() {
		return []Option{WithoutIOUring()}
	}
	return nil
}

// requireRing skips a test about io_uring itself (rings, SQEs,
// registered resources, kernel waits) on the fallback backend.
func requireRing(tb testing.TB) {
	tb.Helper()
	if onFallback() {
		tb.Skip("about io_uring itself: the fallback backend has no ring")
	}
}

// newExec starts an executor closed at the end of the test; it skips when
// io_uring is unavailable.
func newExec(tb testing.TB, opts ...Option) *Executor {
	tb.Helper()
	ex, err := NewExecutor(append(backendOpts(), opts...)...)
	if errors.Is(err, uring.ErrUnsupported) {
		tb.Skipf("io_uring unavailable: %v", err)
	}
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, ex.Close()) })
	return ex
}

// runTask runs fn as a task and returns its error (within 60s: a guard
// against hangs, wide enough for the stress tests under -race on a loaded
// 2-core machine).
func runTask(tb testing.TB, ex *Executor, fn func(t *T) error) error {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := Run(ctx, ex, func(t *T) (struct{}, error) { return struct{}{}, fn(t) })
	return err
}

// pipe returns the fds of a pipe closed at the end of the test.
func pipe(tb testing.TB) (r, w int) { return testutil.Pipe(tb) }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// onExec returns what fn computes on ex's thread (assert on the test
// goroutine: a failed require inside Do would end the executor's goroutine).
func onExec[V any](tb testing.TB, ex *Executor, fn func() V) V {
	tb.Helper()
	var v V
	require.NoError(tb, ex.Do(func() { v = fn() }))
	return v
}
