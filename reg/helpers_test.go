//go:build linux

package reg_test

import (
	"cmp"
	"errors"
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sys"
)

func TestMain(m *testing.M) {
	// ExampleRegisterBuffers registers both tables with the "2" opcodes.
	// Not in TestIOWQOnThreadWithoutOne's child: the probes would give a
	// thread of it the io-wq that the child's goroutine must not find.
	if os.Getenv(iowqChildEnv) == "" {
		testutil.SkipExamplesUnless(cmp.Or(uring.CheckRegisterOp(sys.RegisterFiles2),
			uring.CheckRegisterOp(sys.RegisterBuffers2)), "ExampleRegisterBuffers")
	}
	testutil.Main(m)
}

func newRing(t *testing.T, entries uint32, opts ...uring.Option) *uring.Ring {
	t.Helper()
	return ringtest.New(t, entries, opts...)
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

// wait returns the next CQE (copied) within two seconds, passing over
// the CQEs of a pool's own SQEs (reg.InternalUserData), which must have
// succeeded.
func wait(t *testing.T, r *uring.Ring) sys.CQE {
	t.Helper()
	for {
		c, err := r.WaitCQETimeout(2 * time.Second)
		require.NoError(t, err)
		v := *c
		r.CQESeen(c)
		if v.UserData != reg.InternalUserData {
			return v
		}
		internalOK(t, v.Res)
	}
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

// internalOK checks the result of a pool's PROVIDE_BUFFERS or
// REMOVE_BUFFERS: success, or (REMOVE_BUFFERS of a group whose buffers are
// all out, before 5.19) ENOENT.
func internalOK(t *testing.T, res int32) {
	t.Helper()
	if res < 0 {
		require.Equal(t, unix.ENOENT, unix.Errno(-res), "a pool's PROVIDE/REMOVE_BUFFERS failed")
	}
}

// noCQE checks that no CQE is ready but a pool's own.
func noCQE(t *testing.T, r *uring.Ring) {
	t.Helper()
	for {
		c, err := r.PeekCQE()
		require.NoError(t, err)
		if c == nil {
			return
		}
		if c.UserData == reg.InternalUserData {
			internalOK(t, c.Res)
			r.CQESeen(c)
			continue
		}
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

// requireRegister checks err is nil; an unsupported answer goes through
// testutil.Require (a skip on a kernel older than the release that added
// what is missing, a failure on a newer one).
func requireRegister(t *testing.T, err error, op sys.RegisterOp) {
	t.Helper()
	if errors.Is(err, uring.ErrUnsupported) {
		testutil.Require(t, err)
	}
	require.NoError(t, err, "%v", op)
}

// has reports whether err, a probe's answer, is yes. A no must be an
// *uring.UnsupportedError for a release after the running kernel's (as
// testutil.Require checks); any other error fails the test.
func has(t *testing.T, err error) bool {
	t.Helper()
	if err == nil {
		return true
	}
	var ue *uring.UnsupportedError
	require.ErrorAs(t, err, &ue, "a probe's answer")
	if ue.MinimumVersion != "" {
		newer, verr := uring.KernelAtLeast(ue.MinimumVersion)
		require.NoError(t, verr)
		require.False(t, newer, "kernel %s is at least %s, but: %v", uring.KernelRelease(), ue.MinimumVersion, err)
	}
	return false
}

// idxTarget is a ring addressed by its registered index.
type idxTarget int

func (i idxTarget) RegisterTarget() (int, sys.RegisterOp) {
	return int(i), sys.RegisterUseRegisteredRing
}
