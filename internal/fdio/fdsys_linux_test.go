//go:build linux

package fdio

import (
	"net"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestPipe(t *testing.T) {
	r, w, n, err := Pipe(1 << 20)
	require.NoError(t, err)
	defer unix.Close(r)
	defer unix.Close(w)
	got, err := unix.FcntlInt(uintptr(w), unix.F_GETPIPE_SZ, 0)
	require.NoError(t, err)
	require.Equal(t, got, n, "the capacity returned is the pipe's")
	require.GreaterOrEqual(t, n, 64<<10)
	fl, err := unix.FcntlInt(uintptr(r), unix.F_GETFD, 0)
	require.NoError(t, err)
	require.NotZero(t, fl&unix.FD_CLOEXEC)
	r2, w2, n2, err := Pipe(-1) // refused size: the default stays
	require.NoError(t, err)
	require.Positive(t, n2)
	unix.Close(r2)
	unix.Close(w2)
}

func TestSocketOptions(t *testing.T) {
	fd, err := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	require.NoError(t, SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1))
	v, err := GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY)
	require.NoError(t, err)
	require.Equal(t, 1, v)
	for _, sec := range []int{-1, 0, 7} {
		require.NoError(t, SetLinger(fd, sec))
		got, err := GetLinger(fd)
		require.NoError(t, err)
		require.Equal(t, sec, got)
	}
	err = SetsockoptInt(-1, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
	require.Equal(t, unix.EBADF, err, "a bare errno, as every fdio call returns")
	app, err := Appends(fd)
	require.NoError(t, err)
	require.False(t, app)
}

// ConnectNow connects a Unix socket at once and leaves it blocking; a
// missing path fails at once.
func TestConnectNow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", path)
	require.NoError(t, err)
	defer ln.Close()
	fd, err := Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	require.NoError(t, ConnectNow(fd, &unix.SockaddrUnix{Name: path}))
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	require.NoError(t, err)
	require.Zero(t, fl&unix.O_NONBLOCK)
	sa, err := Getpeername(fd)
	require.NoError(t, err)
	require.Equal(t, path, sa.(*unix.SockaddrUnix).Name)
	c, err := ln.Accept()
	require.NoError(t, err)
	c.Close()

	fd2, err := Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	require.NoError(t, err)
	defer unix.Close(fd2)
	require.ErrorIs(t, ConnectNow(fd2, &unix.SockaddrUnix{Name: path + ".none"}), syscall.ENOENT)

	// Connect on a socket that is non-blocking from socket(2): it stays so.
	fd3, err := Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
	require.NoError(t, err)
	defer unix.Close(fd3)
	require.NoError(t, Connect(fd3, &unix.SockaddrUnix{Name: path}))
	fl, err = unix.FcntlInt(uintptr(fd3), unix.F_GETFL, 0)
	require.NoError(t, err)
	require.NotZero(t, fl&unix.O_NONBLOCK)
	c, err = ln.Accept()
	require.NoError(t, err)
	c.Close()
	err = Connect(fd2, &unix.SockaddrUnix{Name: path + ".none"})
	require.Equal(t, syscall.ENOENT, err)
}
