//go:build linux

package main

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
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
