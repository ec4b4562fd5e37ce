package testutil

import (
	"errors"
	"testing"

	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sys"
)

// Require lets the test go on when err (a probe's answer, such as
// uring.CheckCapability(uring.CapMultishotRecv) or uring.CheckOp(op), or a
// library call's error) is nil. Otherwise:
//   - an *uring.UnsupportedError whose MinimumVersion is the running
//     kernel's release or older FAILS the test: the kernel should have the
//     feature, so the probe or the library is wrong;
//   - any other unsupported answer (errors.Is uring.ErrUnsupported: a
//     kernel older than MinimumVersion, io_uring disabled or denied, a
//     feature built out of this kernel) skips the test with its message;
//   - any other error (the probe failed) fails the test.
//
// It is the one way a test skips for a missing kernel feature:
//
//	testutil.Require(t, uring.CheckCapability(uring.CapBufRingInc))
func Require(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if !errors.Is(err, feature.ErrUnsupported) {
		t.Fatalf("feature probe failed: %v", err)
	}
	if ue := feature.AsUnsupported(err); ue != nil && ue.MinimumVersion != "" {
		has, verr := feature.KernelAtLeast(ue.MinimumVersion)
		if verr != nil {
			t.Fatalf("cannot compare kernel %q with %s's release %q: %v (%v)", feature.KernelRelease(), ue.Feature, ue.MinimumVersion, verr, err)
		}
		if has {
			t.Fatalf("kernel %s is at least %s, which added %s, but the answer is: %v",
				feature.KernelRelease(), ue.MinimumVersion, ue.Feature, err)
		}
	}
	t.Skipf("skipped: %v", err)
}

// SkipIfUnsupported skips the test, with err as the reason, when err (a
// feature probe's answer) matches ErrUnsupported; it fails the test on any
// other error and returns on nil. Unlike Require it never fails a test for
// an answer the kernel's release contradicts: prefer Require.
//
//	testutil.SkipIfUnsupported(t, uring.CheckOp(sys.OpPipe))
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
// it acts as Require (io_uring being unavailable here skips).
//
// Deprecated: use Require: every probe's answer carries the release that
// added the feature, so the test need not repeat it.
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
	Require(t, err)
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
