//go:build linux

package sys

import (
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
