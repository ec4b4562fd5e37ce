package fileio

import (
	"testing"

	"github.com/pure-uring/uring/internal/testutil"
)

// TestMain runs the suite, then again where io_uring is denied (a seccomp
// filter; with URING_SYSCTL_TESTS=1 also io_uring_disabled = 2): the same
// tests, on plain system calls. The package's own rings start before the
// leak check's first look: they live as long as the process.
func TestMain(m *testing.M) {
	testutil.MainDeniedSetup(m, func() { Default() })
}
