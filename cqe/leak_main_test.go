//go:build linux

package cqe_test

import (
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
)

// TestMain fails the package when its tests leak fds, goroutines or
// io_uring mappings. ExampleMore needs multishot timeouts (6.4).
func TestMain(m *testing.M) {
	testutil.SkipExamplesUnless(uring.CheckCapability(uring.CapMultishotTimeout), "ExampleMore")
	testutil.Main(m)
}
