package testutil

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/pure-uring/uring/internal/feature"
)

// SkipExamplesUnless keeps the examples named from running when err, a
// feature probe's answer (uring.CheckCapability(uring.CapMultishotTimeout), say),
// says the running kernel lacks the feature: an example cannot skip
// itself, and its output is checked. It parses the test flags and adds the
// names to -test.skip, so call it from TestMain before Main:
//
//	func TestMain(m *testing.M) {
//		testutil.SkipExamplesUnless(uring.CheckCapability(uring.CapMultishotTimeout), "ExampleMore")
//		testutil.Main(m)
//	}
//
// It follows Require: a nil answer, a probe that failed, or an unsupported
// answer that the kernel's release contradicts (the kernel should have the
// feature) leaves the examples to run, and fail if they must.
func SkipExamplesUnless(err error, examples ...string) {
	if err == nil || !errors.Is(err, feature.ErrUnsupported) || len(examples) == 0 {
		return
	}
	if ue := feature.AsUnsupported(err); ue != nil && ue.MinimumVersion != "" {
		if has, verr := feature.KernelAtLeast(ue.MinimumVersion); verr != nil || has {
			return
		}
	}
	if !flag.Parsed() {
		flag.Parse()
	}
	f := flag.Lookup("test.skip")
	if f == nil {
		return
	}
	re := "^(" + strings.Join(examples, "|") + ")$"
	if old := f.Value.String(); old != "" {
		if strings.Contains(old, "/") {
			// Split at slashes into per-level patterns: an alternative
			// added here would join the last level's. Leave it be.
			fmt.Fprintf(os.Stderr, "=== examples run although %v: -test.skip %q has levels\n", err, old)
			return
		}
		re = old + "|" + re
	}
	if err := f.Value.Set(re); err != nil {
		return
	}
	fmt.Fprintf(os.Stderr, "=== examples not run (%s): %v\n", strings.Join(examples, ", "), err)
}
