//go:build linux

package main_test

import (
	"testing"

	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/task/fileio"
)

// TestMain fails the package when its tests leak fds, goroutines or
// io_uring mappings. The files workload runs on fileio.Default()'s rings,
// which live for the process (never closed, as documented): they start
// before the snapshot. Their reapers end after a millisecond idle.
func TestMain(m *testing.M) {
	fileio.Default()
	testutil.Main(m)
}
