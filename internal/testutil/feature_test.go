package testutil

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/pure-uring/uring/internal/feature"
	"github.com/stretchr/testify/require"
)

// fakeTB records Skipf/Fatalf and stops the helper like the real ones.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls fn with a fake TB on its own goroutine (Goexit ends it).
func run(fn func(tb testing.TB)) *fakeTB {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f
}

func TestSkipIfUnsupported(t *testing.T) {
	f := run(func(tb testing.TB) { SkipIfUnsupported(tb, nil) })
	require.Empty(t, f.skipped+f.failed)

	no := fmt.Errorf("%w: opcode NOP128", feature.ErrUnsupported)
	f = run(func(tb testing.TB) { SkipIfUnsupported(tb, no) })
	require.Contains(t, f.skipped, "opcode NOP128")
	require.Empty(t, f.failed)

	f = run(func(tb testing.TB) { SkipIfUnsupported(tb, errors.New("ENOMEM")) })
	require.Contains(t, f.failed, "ENOMEM")
	require.Empty(t, f.skipped)
}

func TestFailIfKernelHas(t *testing.T) {
	if feature.Available() != nil {
		t.Skipf("io_uring unavailable: %v", feature.Available())
	}
	no := fmt.Errorf("%w: opcode X", feature.ErrUnsupported)

	f := run(func(tb testing.TB) { FailIfKernelHas(tb, "5.1", no) })
	require.Contains(t, f.failed, "is at least 5.1")
	require.Contains(t, f.failed, "opcode X")

	f = run(func(tb testing.TB) { FailIfKernelHas(tb, "99.0", no) })
	require.Contains(t, f.skipped, "opcode X", "older kernel: skip")
	require.Empty(t, f.failed)

	f = run(func(tb testing.TB) { FailIfKernelHas(tb, "5.1", nil) })
	require.Empty(t, f.skipped+f.failed)

	f = run(func(tb testing.TB) { FailIfKernelHas(tb, "5.1", errors.New("EMFILE")) })
	require.Contains(t, f.failed, "EMFILE")

	f = run(func(tb testing.TB) { FailIfKernelHas(tb, "not-a-version", no) })
	require.Contains(t, f.failed, "not-a-version")
}
