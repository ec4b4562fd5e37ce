//go:build linux

package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/feature"
)

// requireBackend checks that Default runs where it should: on io_uring
// when the kernel lets this process have it, on plain calls otherwise.
func requireBackend(t *testing.T) {
	t.Helper()
	if err := feature.Available(); errors.Is(err, feature.ErrUnsupported) {
		require.Error(t, Default().Fallback(), "io_uring is denied here: the rings must fall back")
		require.Zero(t, Default().Len())
	} else {
		require.NoError(t, Default().Fallback(), "io_uring is available here")
		require.Positive(t, Default().Len())
	}
}

// newRings makes Rings closed at the end of the test.
func newRings(t *testing.T, n int) *Rings {
	t.Helper()
	r, err := NewRings(n, 16)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	if r.Fallback() == nil {
		require.Equal(t, n, r.Len(), "rings started")
	}
	return r
}

// patterned writes a file of blocks whose bytes name their block.
func patterned(t *testing.T, dir string, block, blocks int) (string, []byte) {
	t.Helper()
	data := make([]byte, block*blocks)
	for i := range data {
		data[i] = byte(i/block) ^ byte(i)
	}
	p := filepath.Join(dir, "data")
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p, data
}

// directDir is a directory whose file system takes O_DIRECT (/tmp may be
// a tmpfs, which refuses it), or "" when none is found.
func directDir(t *testing.T) string {
	t.Helper()
	for _, base := range []string{t.TempDir(), "."} {
		dir, err := os.MkdirTemp(base, "direct")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(dir) })
		p := filepath.Join(dir, "probe")
		fd, err := unix.Open(p, unix.O_CREAT|unix.O_RDWR|unix.O_DIRECT|unix.O_CLOEXEC, 0o600)
		if err == nil {
			unix.Close(fd)
			return dir
		}
	}
	return ""
}

// droppableDir is a directory on a file system with a block device under
// it, whose cached pages FADV_DONTNEED drops, or "" when none is found.
// (O_DIRECT alone does not tell: since 6.6 a tmpfs takes it too.)
func droppableDir(t *testing.T) string {
	t.Helper()
	for _, base := range []string{t.TempDir(), "."} {
		var fs unix.Statfs_t
		require.NoError(t, unix.Statfs(base, &fs))
		if fs.Type == unix.TMPFS_MAGIC || fs.Type == unix.RAMFS_MAGIC {
			continue
		}
		dir, err := os.MkdirTemp(base, "droppable")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return ""
}

// fdOpen reports whether fd is open in this process.
func fdOpen(fd int) bool {
	_, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	return err == nil
}
