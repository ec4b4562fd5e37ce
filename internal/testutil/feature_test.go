package testutil

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sys"
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

func TestRequire(t *testing.T) {
	kernel := feature.KernelRelease()
	if _, err := feature.KernelAtLeast("5.1"); err != nil {
		t.Skipf("the kernel release %q cannot be compared: %v", kernel, err)
	}
	f := run(func(tb testing.TB) { Require(tb, nil) })
	require.Empty(t, f.skipped+f.failed)

	old := &feature.UnsupportedError{Feature: "opcode IORING_OP_NOP", MinimumVersion: "5.1", Kernel: kernel, Err: errors.New("invalid argument")}
	f = run(func(tb testing.TB) { Require(tb, fmt.Errorf("wrapped: %w", old)) })
	require.Empty(t, f.skipped, "the kernel has it: not a skip")
	require.Contains(t, f.failed, "is at least 5.1, which added opcode IORING_OP_NOP")
	require.Contains(t, f.failed, "needs Linux 5.1")

	same := &feature.UnsupportedError{Feature: "x", MinimumVersion: kernel, Kernel: kernel}
	f = run(func(tb testing.TB) { Require(tb, same) })
	require.NotEmpty(t, f.failed, "the kernel's own release counts as having it")

	newer := &feature.UnsupportedError{Feature: "opcode IORING_OP_FUTURE", MinimumVersion: "99.0", Kernel: kernel}
	f = run(func(tb testing.TB) { Require(tb, newer) })
	require.Empty(t, f.failed)
	require.Contains(t, f.skipped, "opcode IORING_OP_FUTURE needs Linux 99.0")

	disabled := &feature.UnsupportedError{Feature: "io_uring", Reason: "kernel.io_uring_disabled = 2 disables io_uring"}
	f = run(func(tb testing.TB) { Require(tb, disabled) })
	require.Empty(t, f.failed, "no release would help: skip")
	require.Contains(t, f.skipped, "kernel.io_uring_disabled = 2")

	plain := fmt.Errorf("%w: something", feature.ErrUnsupported)
	f = run(func(tb testing.TB) { Require(tb, plain) })
	require.Contains(t, f.skipped, "something")

	f = run(func(tb testing.TB) { Require(tb, errors.New("EMFILE")) })
	require.Contains(t, f.failed, "feature probe failed: EMFILE")
	require.Empty(t, f.skipped)

	bad := &feature.UnsupportedError{Feature: "x", MinimumVersion: "linux", Kernel: kernel}
	f = run(func(tb testing.TB) { Require(tb, bad) })
	require.Contains(t, f.failed, `"linux"`)
}

// Require on real probes: what this kernel has passes, what it lacks skips.
func TestRequireProbes(t *testing.T) {
	if err := feature.Available(); err != nil {
		t.Skipf("io_uring unavailable: %v", err)
	}
	f := run(func(tb testing.TB) { Require(tb, uring.CheckOp(sys.OpNop)) })
	require.Empty(t, f.skipped+f.failed)
	f = run(func(tb testing.TB) { Require(tb, uring.CheckOp(255)) })
	require.Empty(t, f.failed)
	require.Contains(t, f.skipped, "opcode 255")
	for _, c := range uring.Capabilities() {
		f = run(func(tb testing.TB) { Require(tb, uring.CheckCapability(c)) })
		require.Empty(t, f.failed, "%v", c)
	}
}
