package main

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/internal/testutil"
)

func TestUDPEcho(t *testing.T) {
	ready := make(chan string, 1)
	done := make(chan error, 1)
	const n = 20
	go func() { done <- serve(context.Background(), "127.0.0.1:0", n, func(a string) { ready <- a }) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatal(err)
	}
	c, err := net.Dial("udp", addr)
	require.NoError(t, err)
	defer c.Close()
	buf := make([]byte, 2048)
	for i := 0; i < n; i++ {
		msg := fmt.Sprintf("datagram %d over io_uring", i)
		if i == n-1 {
			msg = string(make([]byte, 1400)) // a bigger one, as is
		}
		_, err := c.Write([]byte(msg))
		require.NoError(t, err)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
		m, err := c.Read(buf)
		require.NoError(t, err)
		require.Equal(t, msg, string(buf[:m]))
	}
	require.NoError(t, <-done, "it stops after -max datagrams")

	// Stopped by its context, while waiting in ReadFrom.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- serve(ctx, "127.0.0.1:0", 0, func(a string) { ready <- a }) }()
	<-ready
	cancel()
	require.NoError(t, <-done)
}

// TestMain runs the tests, then again where io_uring is denied (a seccomp
// filter; kernel.io_uring_disabled = 2 when URING_SYSCTL_TESTS=1): the
// example serves the same on the task layer's fallback.
func TestMain(m *testing.M) { testutil.MainDenied(m) }
