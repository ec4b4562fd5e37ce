//go:build linux

package ring

import (
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func closeAtEnd(t *testing.T, fds ...int) {
	t.Cleanup(func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	})
}

// TestIdentify: a socket is its cookie (shared by its dups, not by its
// peer), a pipe its inode; the anonymous inode eventfds share identifies
// nothing, and neither does a closed fd.
func TestIdentify(t *testing.T) {
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	closeAtEnd(t, sp[0], sp[1])
	d, err := unix.Dup(sp[0])
	require.NoError(t, err)
	closeAtEnd(t, d)
	s0, s1, sd := identify(sp[0]), identify(sp[1]), identify(d)
	require.Equal(t, idCookie, s0.kind)
	require.Equal(t, s0, sd, "a dup is the same socket")
	require.NotEqual(t, s0, s1)
	require.True(t, sameFile(d, s0))
	require.False(t, sameFile(sp[1], s0))

	var p, q [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_CLOEXEC))
	require.NoError(t, unix.Pipe2(q[:], unix.O_CLOEXEC))
	closeAtEnd(t, p[0], p[1], q[0], q[1])
	pi := identify(p[0])
	require.Equal(t, idInode, pi.kind)
	require.True(t, sameFile(p[0], pi))
	require.False(t, sameFile(q[0], pi))
	require.False(t, sameFile(sp[0], pi), "a socket is not a pipe")
	require.False(t, sameFile(p[0], s0), "a pipe is not a socket")

	e1, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	require.NoError(t, err)
	e2, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	require.NoError(t, err)
	closeAtEnd(t, e1, e2)
	require.Equal(t, fileID{}, identify(e1), "eventfds share one inode")
	require.False(t, sameFile(e1, identify(e1)))

	require.NoError(t, unix.Close(d))
	require.Equal(t, fileID{}, identify(d), "a closed fd")
	require.False(t, sameFile(d, s0))
}

// TestKeepPerFile: bytes are kept under the fd and the file they came
// from; a number that names another file gets none of them and holds them
// no longer (taken, peeked, or kept again); bytes of a file that cannot be
// identified are not kept.
func TestKeepPerFile(t *testing.T) {
	r := &Backend{}
	a, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	b, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	closeAtEnd(t, a[0], a[1], b[0], b[1])
	fd, ida, idb := a[0], identify(a[0]), identify(b[0])
	buf := make([]byte, 16)

	r.keep(fd, ida, []byte("abc"))
	require.Equal(t, 2, r.takeKept(fd, buf[:2], true), "peek")
	require.Equal(t, 2, r.takeKept(fd, buf[:2], false))
	require.Equal(t, "ab", string(buf[:2]))
	require.Equal(t, []byte("c"), r.TakeKept(fd))
	require.Zero(t, r.KeptFds())

	// The number now names b's socket (dup3 over it: no close in between).
	r.keep(fd, ida, []byte("old"))
	require.NoError(t, unix.Dup3(b[0], fd, unix.O_CLOEXEC))
	require.Zero(t, r.takeKept(fd, buf, true))
	require.Zero(t, r.KeptFds(), "stale bytes still kept after a peek")
	r.keep(fd, ida, []byte("old"))
	require.Zero(t, r.takeKept(fd, buf, false))
	require.Zero(t, r.KeptFds())
	r.keep(fd, ida, []byte("old"))
	require.Nil(t, r.TakeKept(fd))
	require.Zero(t, r.KeptFds())
	// Kept again for the file the number names now: the old bytes go.
	r.keep(fd, ida, []byte("old"))
	r.keep(fd, idb, []byte("new"))
	require.Equal(t, []byte("new"), r.TakeKept(fd))
	require.Equal(t, 4*3, r.Counters().KeptStale)

	// A file that cannot be identified keeps nothing.
	r.keep(fd, fileID{}, []byte("lost"))
	require.Zero(t, r.KeptFds())
	require.Equal(t, 4*3+4, r.Counters().KeptStale)
}
