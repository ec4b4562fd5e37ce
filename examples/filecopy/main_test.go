//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"

	"github.com/pure-uring/uring/internal/testutil"
)

func TestCopy(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 1<<20+12345)
	for i := range data {
		data[i] = byte(rand.IntN(256))
	}
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	require.NoError(t, os.WriteFile(src, data, 0o640))
	n, err := copyFile(src, dst)
	if errors.Is(err, uring.ErrUnsupported) {
		t.Skip(err)
	}
	require.NoError(t, err)
	require.Equal(t, int64(len(data)), n)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
	fi, err := os.Stat(dst)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
}

// TestMain runs the tests, then again where io_uring is denied (a seccomp
// filter; kernel.io_uring_disabled = 2 when URING_SYSCTL_TESTS=1): the
// example serves the same on the task layer's fallback.
func TestMain(m *testing.M) { testutil.MainDenied(m) }
