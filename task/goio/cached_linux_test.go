//go:build linux

package goio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/task"
)

// requireNowait skips the test where the file's filesystem cannot serve a
// cached read without blocking (preadv2 with RWF_NOWAIT answers EAGAIN:
// tmpfs before it had IOCB_NOWAIT, as in the kernel-test VMs' /tmp), so the
// page-cache shortcut always falls back to the ring there. It is a probe
// of the filesystem the test runs on, not of an io_uring feature.
func requireNowait(t *testing.T, fd int) {
	t.Helper()
	buf := make([]byte, 512)
	_, err := fdio.PreadNowait(fd, buf, 0)
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EOPNOTSUPP) {
		var st unix.Statfs_t
		_ = unix.Fstatfs(fd, &st)
		t.Skipf("preadv2(RWF_NOWAIT) of cached data answers %v on this filesystem (magic %#x): no page-cache shortcut here", err, st.Type)
	}
	require.NoError(t, err)
}

// evict writes f back and drops it from the page cache; false on tmpfs,
// whose pages cannot be dropped.
func evict(t *testing.T, f *os.File) bool {
	t.Helper()
	var st unix.Statfs_t
	require.NoError(t, unix.Fstatfs(int(f.Fd()), &st))
	if st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC {
		t.Logf("%s is on tmpfs: the cache-miss half needs a disk-backed TMPDIR", f.Name())
		return false
	}
	require.NoError(t, f.Sync())
	require.NoError(t, unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED))
	return true
}

// File.ReadAt on a buffered file reads cached data on the calling
// goroutine (no allocation: no trip to the executor), stops with io.EOF at
// the end, and reads what is not cached through the ring.
func TestFileReadAtCached(t *testing.T) {
	rt := newRuntime(t, 1)
	path := filepath.Join(t.TempDir(), "f")
	f, err := On(rt).OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer f.Close()
	data := bytes.Repeat([]byte("uring cached read "), 2000) // 36000 bytes
	n, err := f.WriteAt(data, 0)
	require.NoError(t, err)
	require.Equal(t, len(data), n)
	requireNowait(t, f.Fd())

	b := make([]byte, 4096)
	n, err = f.ReadAt(b, 1000)
	require.NoError(t, err)
	require.Equal(t, data[1000:1000+4096], b[:n])
	require.Zero(t, testing.AllocsPerRun(100, func() {
		if n, err := f.ReadAt(b, 8192); err != nil || n != len(b) {
			panic(sprintErr("ReadAt", n, err))
		}
	}), "a cached ReadAt stays on the calling goroutine")

	n, err = f.ReadAt(b, int64(len(data)-10))
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, data[len(data)-10:], b[:n])
	n, err = f.ReadAt(b, int64(len(data)))
	require.ErrorIs(t, err, io.EOF)
	require.Zero(t, n)

	_, err = f.ReadAt(b, -1)
	var ae *task.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "off", ae.Arg)
	_, err = f.WriteAt(b, -1)
	require.ErrorAs(t, err, &ae)

	osf, err := os.Open(path)
	require.NoError(t, err)
	defer osf.Close()
	if evict(t, osf) {
		n, err = f.ReadAt(b, 20000)
		require.NoError(t, err)
		require.Equal(t, data[20000:20000+4096], b[:n], "a miss (through the ring, or direct once readahead is done) reads the right bytes")
	}
}
