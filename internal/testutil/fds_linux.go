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
