//go:build linux

package tests

import (
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pure-uring/uring/sqe"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestShortReadBreaksLinkHardLinkContinues: a read of 8 bytes with 4 left
// in the file returns 4 (the count, not an error); a short read breaks a
// soft link (the follower gets ECANCELED) but not a hard link; a short
// write returns its count too.
func TestShortReadBreaksLinkHardLinkContinues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, []byte("12345678"), 0o600))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	fd := int(f.Fd())
	r := ringtest.New(t, 8)
	buf := make([]byte, 8)
	for _, hard := range []bool{false, true} {
		s := getSQE(t, r)
		require.NoError(t, sqe.Read(s, fd, buf, 4))
		if hard {
			sqe.SetHardLink(s)
		} else {
			sqe.SetLink(s)
		}
		s.UserData = 1
		s = getSQE(t, r)
		sqe.Nop(s)
		s.UserData = 2
		cs := byUD(t, submitWait(t, r, 2))
		require.Equal(t, int32(4), cs[1].Res, "hard %v", hard)
		require.Equal(t, "5678", string(buf[:4]))
		if hard {
			require.Equal(t, int32(0), cs[2].Res, "a hard link carries on after a short read")
		} else {
			require.Equal(t, -int32(unix.ECANCELED), cs[2].Res, "a short read breaks the link")
		}
	}
	// A short write: a non-blocking pipe with room for fewer bytes than
	// asked (O_NONBLOCK, not RWF_NOWAIT: Debian's 5.10 answers EOPNOTSUPP
	// to RWF_NOWAIT on a pipe).
	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC))
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	_, err = unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, 4096)
	require.NoError(t, err)
	big := make([]byte, 8192)
	s := getSQE(t, r)
	require.NoError(t, sqe.Write(s, p[1], big, sqe.CurrentPos))
	c := submitWait(t, r, 1)[0]
	require.Equal(t, int32(4096), c.Res, "a short write returns its count")
	runtime.KeepAlive(big)
	runtime.KeepAlive(buf)
}
