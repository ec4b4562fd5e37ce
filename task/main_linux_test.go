//go:build linux

package task

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// newExec starts an executor closed at the end of the test; it skips when
// io_uring is unavailable.
func newExec(tb testing.TB, opts ...Option) *Executor {
	tb.Helper()
	ex, err := NewExecutor(opts...)
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
