//go:build linux

package sys

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSigset(t *testing.T) {
	var s Sigset
	s.Add(syscall.SIGUSR1) // 10
	s.Add(syscall.SIGURG)  // 23
	s.Add(64)
	s.Add(0)  // ignored
	s.Add(65) // ignored
	require.Equal(t, Sigset(1<<9|1<<22|1<<63), s)
	require.True(t, s.Has(syscall.SIGUSR1))
	require.False(t, s.Has(syscall.SIGUSR2))
	require.False(t, s.Has(0))
	s.Del(syscall.SIGUSR1)
	require.False(t, s.Has(syscall.SIGUSR1))
	require.Equal(t, uintptr(SigsetSize), SizeOf[Sigset]())
}
