package testutil

import (
	"errors"
	"testing"

	"github.com/pure-uring/uring"
)

// NewRing creates a ring closed at the end of the test. When io_uring or
// an option is unsupported here it acts as Require: it skips (the message
// says why), or fails when the kernel is at or past the release that added
// the option. It fails on any other error.
func NewRing(t testing.TB, entries uint32, opts ...uring.Option) *uring.Ring {
	t.Helper()
	r, err := uring.New(entries, opts...)
	if errors.Is(err, uring.ErrUnsupported) {
		Require(t, err)
	}
	if err != nil {
		t.Fatalf("uring.New(%d): %v", entries, err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}
