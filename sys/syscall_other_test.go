//go:build !linux

package sys

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNoIOUringHere(t *testing.T) {
	require.False(t, Supported)
	fd, err := Setup(8, &Params{})
	require.Equal(t, -1, fd)
	var se *os.SyscallError
	require.True(t, errors.As(err, &se))
	require.Equal(t, "io_uring_setup", se.Syscall)
	require.ErrorIs(t, err, syscall.ENOSYS)
	_, err = Enter(0, 0, 0, 0)
	require.ErrorIs(t, err, syscall.ENOSYS)
	_, err = MmapAnon(4096, false)
	require.ErrorIs(t, err, syscall.ENOSYS)
}
