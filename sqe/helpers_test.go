//go:build linux

package sqe_test

import (
	"fmt"
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// newRing is a ring closed at the end of the test (or a skip when io_uring
// is unavailable here).
func newRing(t *testing.T, opts ...uring.Option) *uring.Ring {
	t.Helper()
	return ringtest.New(t, 32, opts...)
}

// needOp skips when the kernel lacks op, or fails when the kernel is at or
// past the release that added it (testutil.Require over the probe).
func needOp(t *testing.T, op sys.Op) {
	t.Helper()
	testutil.Require(t, uring.CheckOp(op))
}

// kernelHas is a try-and-see probe made by the test itself: c is the
// kernel's answer to an SQE that uses what, added in release since. An
// answer among no (how older kernels refuse it) skips the test, or fails it
// on a kernel at since or newer (testutil.Require); any other answer goes
// on to the test's own checks.
func kernelHas(t *testing.T, c sys.CQE, what, since string, no ...unix.Errno) {
	t.Helper()
	for _, e := range no {
		if c.Res < 0 && errno(c) == e {
			testutil.Require(t, &uring.UnsupportedError{Feature: what, MinimumVersion: since,
				Kernel: uring.KernelRelease(), Err: e})
		}
	}
}

// kernelLacks ends the test: c, the kernel's answer to an SQE that uses
// what (added in release since), is not what a kernel with it gives, so
// the test skips on a kernel older than since and fails on a newer one.
func kernelLacks(t *testing.T, c sys.CQE, what, since string) {
	t.Helper()
	var err error = unix.Errno(0)
	if c.Res < 0 {
		err = errno(c)
	}
	testutil.Require(t, &uring.UnsupportedError{Feature: what, MinimumVersion: since,
		Kernel: uring.KernelRelease(), Reason: fmt.Sprintf("the kernel answered %d", c.Res), Err: err})
}

// prep gets an SQE, runs build on it and tags it with ud.
func prep(t *testing.T, r *uring.Ring, ud uint64, build func(s *sys.SQE) error) *sys.SQE {
	t.Helper()
	s, err := r.GetSQE()
	require.NoError(t, err)
	require.NoError(t, build(s))
	s.UserData = ud
	executed.Store(s.Opcode, true)
	return s
}

// executed records every opcode a test submitted.
var executed sync.Map

// wait collects n CQEs (copies), failing after a few seconds.
func wait(t *testing.T, r *uring.Ring, n int) []sys.CQE {
	t.Helper()
	out := make([]sys.CQE, 0, n)
	for len(out) < n {
		c, err := r.WaitCQETimeout(5 * time.Second)
		require.NoError(t, err, "waiting for CQE %d of %d", len(out)+1, n)
		out = append(out, *c)
		r.CQESeen(c)
	}
	return out
}

// submitWait submits everything prepared and collects n CQEs.
func submitWait(t *testing.T, r *uring.Ring, n int) []sys.CQE {
	t.Helper()
	_, err := r.Submit()
	require.NoError(t, err)
	return wait(t, r, n)
}

// run prepares one SQE with build, submits it and returns its CQE.
func run(t *testing.T, r *uring.Ring, build func(s *sys.SQE) error) sys.CQE {
	t.Helper()
	prep(t, r, 1, build)
	c := submitWait(t, r, 1)[0]
	require.Equal(t, uint64(1), c.UserData)
	return c
}

// runOK is run requiring a non-negative result, which it returns.
func runOK(t *testing.T, r *uring.Ring, build func(s *sys.SQE) error) int {
	t.Helper()
	c := run(t, r, build)
	require.GreaterOrEqual(t, c.Res, int32(0), "errno %v", unix.Errno(-c.Res))
	return int(c.Res)
}

// byUD indexes CQEs by user_data (the last one wins).
func byUD(cs []sys.CQE) map[uint64]sys.CQE {
	m := make(map[uint64]sys.CQE, len(cs))
	for _, c := range cs {
		m[c.UserData] = c
	}
	return m
}

func errno(c sys.CQE) unix.Errno {
	if c.Res >= 0 {
		return 0
	}
	return unix.Errno(-c.Res)
}

// tempFile creates a file in t.TempDir() holding data, open read-write;
// closed at the end of the test.
func tempFile(t *testing.T, data []byte) (*os.File, string) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(name, data, 0o600))
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f, name
}

// cpath is a NUL-terminated path.
func cpath(t *testing.T, p string) []byte {
	t.Helper()
	b, err := sqe.Path(p)
	require.NoError(t, err)
	return b
}

// pipe and socketpair: fds closed at the end of the test.
func pipe(t *testing.T) (r, w int) { return testutil.Pipe(t) }

func socketpair(t *testing.T, typ int) (a, b int) { return testutil.Socketpair(t, typ) }

// closeLater closes fd at the end of the test.
func closeLater(t *testing.T, fd int) {
	t.Cleanup(func() { unix.Close(fd) })
}

// tcpPair returns a connected TCP loopback pair, closed at the end of the
// test.
func tcpPair(t *testing.T) (int, int) { return testutil.TCPPair(t) }

// udpSocket returns a UDP socket bound to a loopback port, and its address.
func udpSocket(t *testing.T) (int, unix.RawSockaddrInet4) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	closeLater(t, fd)
	require.NoError(t, unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := unix.Getsockname(fd)
	require.NoError(t, err)
	return fd, rawInet4(sa.(*unix.SockaddrInet4))
}

func rawInet4(sa *unix.SockaddrInet4) unix.RawSockaddrInet4 {
	raw := unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: sa.Addr}
	raw.Port = uint16(sa.Port>>8) | uint16(sa.Port&0xff)<<8 // network order
	return raw
}

// registerFiles registers fds (-1: empty slot) with the ring.
func registerFiles(t *testing.T, r *uring.Ring, fds []int32) {
	t.Helper()
	_, err := sys.RegisterSlice(r.Fd(), sys.RegisterFiles, fds)
	require.NoError(t, err)
}

// registerBuffers registers bufs as fixed buffers 0..n-1.
func registerBuffers(t *testing.T, r *uring.Ring, bufs ...[]byte) {
	t.Helper()
	iov := make([]unix.Iovec, len(bufs))
	for i, b := range bufs {
		iov[i].Base = &b[0]
		iov[i].SetLen(len(b))
	}
	_, err := sys.RegisterSlice(r.Fd(), sys.RegisterBuffers, iov)
	require.NoError(t, err)
}
