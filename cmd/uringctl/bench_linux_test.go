//go:build linux

package main

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/task/fileio"
)

// directIOWorks reports whether a file in dir opens with O_DIRECT.
func directIOWorks(t *testing.T, dir string) bool {
	t.Helper()
	f, err := os.CreateTemp(dir, "direct")
	require.NoError(t, err)
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	d, err := os.OpenFile(name, os.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		require.ErrorIs(t, err, syscall.EINVAL, "O_DIRECT open of %s", name)
		return false
	}
	d.Close()
	return true
}

// Where io_uring is denied (a seccomp filter, as Docker's default
// profile), bench files measures task/fileio's fallback on plain system
// calls (its rows say so) instead of refusing to run, and a workload that
// needs io_uring still exits 2. Run in a child process made with io_uring
// denied from its start.
func TestBenchWithoutIOUring(t *testing.T) {
	if os.Getenv(deniedChildEnv) != "1" {
		t.Log(testutil.Child(t, "TestBenchWithoutIOUring", deniedChildEnv+"=1"))
		return
	}
	require.Error(t, fileio.Default().Fallback(), "io_uring is denied here")
	code, out, errOut := benchRun("files", "--json", "--reps", "1", "--no-peers", "--mode", "buffered",
		"--qd", "1", "--size", "1M", "--duration", "20ms", "--dir", t.TempDir())
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "files measures its fallback")
	pts := decodePoints(t, out)
	require.Len(t, pts, 1)
	require.Equal(t, "fileio.File (fallback: no io_uring) ReadAt", pts[0].Impl)
	require.Positive(t, pts[0].Value)
	require.Positive(t, pts[0].Ratio)

	code, _, errOut = benchRun("nop", "--qd", "1", "--duration", "10ms", "--reps", "1", "--no-peers")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "io_uring unavailable")
}
