package testutil

import (
	"errors"
	"testing"

	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sys"
)

// SkipIfUnsupported skips the test, with err as the reason, when err (a
// feature probe's answer) wraps feature.ErrUnsupported; it fails the test
// on any other error and returns on nil.
//
//	testutil.SkipIfUnsupported(t, feature.Op(sys.OpPipe))
func SkipIfUnsupported(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if errors.Is(err, feature.ErrUnsupported) {
		t.Skipf("skipped: %v", err)
	}
	t.Fatalf("feature probe failed: %v", err)
}

// FailIfKernelHas fails the test when the running kernel is release or
// newer but err (a probe's answer) says the feature is unsupported: the
// kernel should have it, so the probe or the library is wrong. Otherwise
// it acts as SkipIfUnsupported (io_uring being unavailable here skips).
//
//	testutil.FailIfKernelHas(t, "6.16", feature.Op(sys.OpPipe))
func FailIfKernelHas(t testing.TB, release string, err error) {
	t.Helper()
	if err != nil && errors.Is(err, feature.ErrUnsupported) && feature.Available() == nil {
		newer, verr := feature.KernelAtLeast(release)
		if verr != nil {
			t.Fatalf("FailIfKernelHas(%q): %v", release, verr)
		}
		if newer {
			t.Fatalf("kernel %s is at least %s, which has this feature, but the probe says: %v",
				feature.KernelRelease(), release, err)
		}
	}
	SkipIfUnsupported(t, err)
}

// MissingOp returns an opcode the running kernel lacks: the first one
// sys names that the probe says is missing, else 255. It skips the test
// when the kernel has even that.
func MissingOp(t testing.TB) sys.Op {
	t.Helper()
	for op := sys.OpNop; op < 255; op++ {
		if op.Since() != "" && errors.Is(feature.Op(op), feature.ErrUnsupported) {
			return op
		}
	}
	if feature.Op(255) == nil {
		t.Skip("this kernel has every opcode up to 255: none is missing")
	}
	return 255
}
