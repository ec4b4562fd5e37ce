//go:build linux

package testutil

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Pipe returns the read and write ends of a close-on-exec pipe, closed at
// the end of the test.
func Pipe(tb testing.TB) (r, w int) {
	tb.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		tb.Fatalf("pipe2: %v", err)
	}
	tb.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0], p[1]
}

// Socketpair returns a connected AF_UNIX pair of type typ (SOCK_STREAM,
// SOCK_DGRAM, ...), closed at the end of the test.
func Socketpair(tb testing.TB, typ int) (a, b int) {
	tb.Helper()
	p, err := unix.Socketpair(unix.AF_UNIX, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		tb.Fatalf("socketpair: %v", err)
	}
	tb.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0], p[1]
}

// TCPPair returns a connected loopback TCP pair (the client side, then the
// accepted side), closed at the end of the test.
func TCPPair(tb testing.TB) (client, server int) {
	tb.Helper()
	fail := func(what string, err error) {
		if err != nil {
			tb.Fatalf("tcp pair: %s: %v", what, err)
		}
	}
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	fail("socket", err)
	defer unix.Close(l)
	fail("bind", unix.Bind(l, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	fail("listen", unix.Listen(l, 1))
	sa, err := unix.Getsockname(l)
	fail("getsockname", err)
	client, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	fail("socket", err)
	tb.Cleanup(func() { unix.Close(client) })
	fail("connect", unix.Connect(client, sa))
	server, _, err = unix.Accept4(l, unix.SOCK_CLOEXEC)
	fail("accept", err)
	tb.Cleanup(func() { unix.Close(server) })
	return client, server
}
