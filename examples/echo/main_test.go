//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/internal/testutil"
)

func TestEcho(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	const conns = 3
	go func() { done <- serve(ctx, ln.(*net.TCPListener), conns) }()
	for i := 0; i < conns; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		msg := fmt.Sprintf("hello %d over io_uring", i)
		_, err = c.Write([]byte(msg))
		require.NoError(t, err)
		got := make([]byte, len(msg))
		_, err = io.ReadFull(c, got)
		require.NoError(t, err)
		require.Equal(t, msg, string(got))
		require.NoError(t, c.Close())
	}
	require.NoError(t, <-done)
}

// TestMain runs the tests, then again where io_uring is denied (a seccomp
// filter; kernel.io_uring_disabled = 2 when URING_SYSCTL_TESTS=1): the
// example serves the same on the task layer's fallback.
func TestMain(m *testing.M) { testutil.MainDenied(m) }
