package testutil

import (
	"errors"
	"testing"

	"github.com/pure-uring/uring"
)

// NewRing creates a ring closed at the end of the test. It skips when
// io_uring or the options are unsupported here (the message says why) and
// fails on any other error.
func NewRing(t testing.TB, entries uint32, opts ...uring.Option) *uring.Ring {
	t.Helper()
	r, err := uring.New(entries, opts...)
	if errors.Is(err, uring.ErrUnsupported) {
		t.Skipf("io_uring unavailable: %v", err)
	}
	if err != nil {
		t.Fatalf("uring.New(%d): %v", entries, err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}
