//go:build linux

package main

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/internal/testutil/seccomp"
	"github.com/pure-uring/uring/task/fileio"
)

// deniedChildEnv makes this test binary a child in which io_uring is
// denied (a seccomp filter, as Docker's default profile) before anything
// starts: TestBenchWithoutIOUring runs bench there.
const deniedChildEnv = "URINGCTL_TEST_DENIED_CHILD"

// TestMain fails the package when its tests leak fds, goroutines or
// io_uring mappings. The files workload runs on fileio.Default()'s rings,
// which live for the process (never closed, as documented): they start
// before the snapshot. Their reapers end after a millisecond idle.
func TestMain(m *testing.M) {
	if os.Getenv(deniedChildEnv) == "1" {
		if err := seccomp.DenyIOUring(unix.EPERM); err != nil {
			fmt.Fprintln(os.Stderr, "denying io_uring:", err)
			os.Exit(3)
		}
	}
	fileio.Default()
	testutil.Main(m)
}
