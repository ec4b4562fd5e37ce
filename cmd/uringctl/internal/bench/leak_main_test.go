//go:build linux

package bench_test

import (
	"testing"

	"github.com/pure-uring/uring/internal/testutil"
)

// TestMain fails the package when its tests leak fds, goroutines or
// io_uring mappings.
func TestMain(m *testing.M) { testutil.Main(m) }
