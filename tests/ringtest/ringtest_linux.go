package ringtest

import (
	"errors"
	"runtime"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sys"
)

// New creates a ring closed at the end of the test, following the rules
// of package uring for a submitting goroutine: the test's goroutine is
// locked to its thread until the test ends, and that thread's io-wq
// workers are started (reg.StartIOWorkers), so no request of the test is
// cancelled by a thread that exits or by a signal that spoils a worker's
// start. When io_uring or an option is unsupported here it acts as
// testutil.Require: it skips (the message says why), or fails when the
// kernel is at or past the release that added the option. It fails on any
// other error.
func New(t testing.TB, entries uint32, opts ...uring.Option) *uring.Ring {
	t.Helper()
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread) // after the ring's Close (cleanups run last-in first)
	r, err := uring.New(entries, opts...)
	if errors.Is(err, uring.ErrUnsupported) {
		testutil.Require(t, err)
	}
	if err != nil {
		t.Fatalf("uring.New(%d): %v", entries, err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if r.SetupFlags()&(sys.SetupSQPoll|sys.SetupIOPoll|sys.SetupRDisabled) == 0 {
		if err := reg.StartIOWorkers(r); err != nil {
			t.Fatalf("reg.StartIOWorkers: %v", err)
		}
	}
	return r
}
