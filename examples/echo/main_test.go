//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/internal/testutil"
)

func TestEcho(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard only
	defer cancel()
	done := make(chan error, 1)
	bound := make(chan netip.AddrPort, 1)
	const conns = 3
	go func() {
		done <- serve(ctx, netip.MustParseAddrPort("127.0.0.1:0"), conns, func(a netip.AddrPort) { bound <- a })
	}()
	var addr netip.AddrPort
	select {
	case addr = <-bound:
	case err := <-done:
		require.NoError(t, err)
		t.Fatal("serve returned before listening")
	}
	require.NotZero(t, addr.Port())
	for i := 0; i < conns; i++ {
		c, err := net.Dial("tcp", addr.String())
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
	// After max connections serve returns nil (its socket closed: the
	// leak check of TestMain).
	require.NoError(t, <-done)
}

// serve returns nil when its ctx ends, with no connection served.
func TestEchoStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	bound := make(chan netip.AddrPort, 1)
	go func() {
		done <- serve(ctx, netip.MustParseAddrPort("127.0.0.1:0"), 0, func(a netip.AddrPort) { bound <- a })
	}()
	select {
	case <-bound:
	case err := <-done:
		require.NoError(t, err)
		t.Fatal("serve returned before listening")
	}
	cancel()
	require.NoError(t, <-done)
}

// TestMain runs the tests, then again where io_uring is denied (a seccomp
// filter; kernel.io_uring_disabled = 2 when URING_SYSCTL_TESTS=1): the
// example serves the same on the task layer's fallback.
func TestMain(m *testing.M) { testutil.MainDenied(m) }
