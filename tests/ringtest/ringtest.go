// Package ringtest makes rings for tests: New creates one closed at the
// end of the test, or skips (or fails) through the feature probes when
// the kernel lacks what the options ask for. It sits outside internal/
// because it imports package uring, which internal/ packages are below.
package ringtest

import (
	"errors"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
)

// New creates a ring closed at the end of the test. When io_uring or an
// option is unsupported here it acts as testutil.Require: it skips (the
// message says why), or fails when the kernel is at or past the release
// that added the option. It fails on any other error.
func New(t testing.TB, entries uint32, opts ...uring.Option) *uring.Ring {
	t.Helper()
	r, err := uring.New(entries, opts...)
	if errors.Is(err, uring.ErrUnsupported) {
		testutil.Require(t, err)
	}
	if err != nil {
		t.Fatalf("uring.New(%d): %v", entries, err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}
