//go:build linux

package reg_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
)

func TestMain(m *testing.M) { testutil.Main(m) }

func newRing(t *testing.T, entries uint32, opts ...uring.Option) *uring.Ring {
	t.Helper()
	return testutil.NewRing(t, entries, opts...)
}

// queue gets an SQE, fills it with build (the sqe builders write every
// field) and then sets user_data ud.
func queue(t *testing.T, r *uring.Ring, ud uint64, build func(s *sys.SQE) error) *sys.SQE {
	t.Helper()
	s, err := r.GetSQE()
	require.NoError(t, err)
	require.NoError(t, build(s))
	s.UserData = ud
	return s
}

// submit submits what is queued and checks all of it went in.
func submit(t *testing.T, r *uring.Ring) {
	t.Helper()
	want := r.SQReady()
	n, err := r.Submit()
	require.NoError(t, err)
	require.Equal(t, int(want), n)
}

// wait returns the next CQE (copied) within two seconds.
func wait(t *testing.T, r *uring.Ring) sys.CQE {
	t.Helper()
	c, err := r.WaitCQETimeout(2 * time.Second)
	require.NoError(t, err)
	v := *c
	r.CQESeen(c)
	return v
}

// waitN returns n CQEs keyed by user_data (each user_data once).
func waitN(t *testing.T, r *uring.Ring, n int) map[uint64]sys.CQE {
	t.Helper()
	m := make(map[uint64]sys.CQE, n)
	for i := 0; i < n; i++ {
		c := wait(t, r)
		_, dup := m[c.UserData]
		require.False(t, dup, "user_data %d twice", c.UserData)
		m[c.UserData] = c
	}
	return m
}

// noCQE checks that no CQE is ready.
func noCQE(t *testing.T, r *uring.Ring) {
	t.Helper()
	c, err := r.PeekCQE()
	require.NoError(t, err)
	if c != nil {
		require.Nil(t, c, "unexpected CQE user_data=%d res=%d", c.UserData, c.Res)
	}
}

// pipe and socketpair: fds closed at the end of the test.
func pipe(t *testing.T) (rd, wr int) { return testutil.Pipe(t) }

func socketpair(t *testing.T, typ int) (a, b int) { return testutil.Socketpair(t, typ) }

// tempFile returns an open read-write temporary file.
func tempFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "reg")
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func errno(t *testing.T, res int32) unix.Errno {
	t.Helper()
	require.Less(t, res, int32(0), "expected an error result")
	return unix.Errno(-res)
}

// requireRegister checks err is nil; a kernel older than the release that
// added op, answering EINVAL, skips instead (with the reason).
func requireRegister(t *testing.T, err error, op sys.RegisterOp) {
	t.Helper()
	if errors.Is(err, unix.EINVAL) {
		if ok, kerr := feature.KernelAtLeast(op.Since()); kerr == nil && !ok {
			t.Skipf("%v needs Linux %s; this is %s: %v", op, op.Since(), feature.KernelRelease(), err)
		}
	}
	require.NoError(t, err, "%v", op)
}

// idxTarget is a ring addressed by its registered index.
type idxTarget int

func (i idxTarget) RegisterTarget() (int, sys.RegisterOp) {
	return int(i), sys.RegisterUseRegisteredRing
}
