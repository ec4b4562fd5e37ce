//go:build linux

package fdio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestRecvSendNonblock(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	buf := make([]byte, 16)
	_, err = RecvNonblock(fds[0], buf)
	require.ErrorIs(t, err, unix.EAGAIN, "nothing to read: no blocking")
	n, err := SendNonblock(fds[1], []byte("ping"))
	require.NoError(t, err)
	require.Equal(t, 4, n)
	n, err = RecvNonblock(fds[0], buf)
	require.NoError(t, err)
	require.Equal(t, "ping", string(buf[:n]))
	require.Zero(t, testing.AllocsPerRun(100, func() { _, _ = RecvNonblock(fds[0], buf) }))
	big := make([]byte, 1<<20)
	for {
		if _, err = SendNonblock(fds[1], big); err != nil {
			break
		}
	}
	require.ErrorIs(t, err, unix.EAGAIN, "a full socket says EAGAIN instead of blocking")
}

// TestPreadNowait: cached data comes back at once (at an offset and at
// the file position); a read that would wait is EAGAIN; errors are bare
// errnos and the EAGAIN path allocates nothing. The same for PreadCached,
// whose reads past rawCachedMax go through the scheduler's hooks.
func TestPreadNowait(t *testing.T) {
	for name, read := range map[string]func(int, []byte, int64) (int, error){"PreadNowait": PreadNowait, "PreadCached": PreadCached} {
		t.Run(name, func(t *testing.T) { testPreadNowait(t, read) })
	}
}

func testPreadNowait(t *testing.T, read func(fd int, b []byte, off int64) (int, error)) {
	f, err := os.CreateTemp(t.TempDir(), "nowait")
	require.NoError(t, err)
	defer f.Close()
	data := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	_, err = f.Write(data)
	require.NoError(t, err)
	fd := int(f.Fd())

	buf := make([]byte, 4096)
	n, err := read(fd, buf, 8192)
	if errors.Is(err, unix.EOPNOTSUPP) {
		// A filesystem without RWF_NOWAIT reads (5.10's tmpfs): the
		// answer callers fall back on, a bare errno.
		var st unix.Statfs_t
		_ = unix.Fstatfs(fd, &st)
		require.Equal(t, unix.EOPNOTSUPP, err)
		t.Skipf("preadv2(RWF_NOWAIT) answers EOPNOTSUPP on this filesystem (magic %#x)", st.Type)
	}
	require.NoError(t, err)
	require.Equal(t, 4096, n)
	require.Equal(t, data[8192:8192+4096], buf)

	_, err = f.Seek(100, io.SeekStart)
	require.NoError(t, err)
	n, err = read(fd, buf[:10], -1)
	require.NoError(t, err)
	require.Equal(t, data[100:110], buf[:10])
	pos, err := f.Seek(0, io.SeekCurrent)
	require.NoError(t, err)
	require.Equal(t, int64(110), pos, "offset -1 reads at and advances the file position")

	n, err = read(fd, buf, int64(len(data)))
	require.NoError(t, err)
	require.Zero(t, n, "end of file")

	big := make([]byte, rawCachedMax+4096) // past the raw size: the same answer
	n, err = read(fd, big, 0)
	require.NoError(t, err)
	require.Equal(t, data, big[:n])

	// An empty pipe: the read would wait, so EAGAIN, and no allocation.
	p := make([]int, 2)
	require.NoError(t, unix.Pipe2(p, unix.O_CLOEXEC))
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	_, err = read(p[0], buf, -1)
	require.Equal(t, unix.EAGAIN, err)
	require.Zero(t, testing.AllocsPerRun(100, func() { _, _ = read(p[0], buf, -1) }))
	_, err = unix.Write(p[1], []byte("pipe"))
	require.NoError(t, err)
	n, err = read(p[0], buf, -1)
	require.NoError(t, err)
	require.Equal(t, "pipe", string(buf[:n]))

	// Dropped from the page cache: EAGAIN, or the data when the readahead
	// the miss started finished first (a fast disk) — never a wait, never
	// other bytes. (tmpfs pages live only in the cache.)
	var st unix.Statfs_t
	require.NoError(t, unix.Fstatfs(fd, &st))
	if st.Type != unix.TMPFS_MAGIC && st.Type != unix.RAMFS_MAGIC {
		require.NoError(t, f.Sync())
		require.NoError(t, unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED))
		n, err = read(fd, buf, 32768)
		if err != nil {
			require.Equal(t, unix.EAGAIN, err)
		} else {
			require.Equal(t, data[32768:32768+n], buf[:n])
		}
	}

	_, err = read(-1, buf, 0)
	require.Equal(t, unix.EBADF, err)
}
