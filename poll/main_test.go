//go:build linux

package poll

import (
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	checkThread = true
	testutil.Main(m)
}

// newLoop starts a loop closed at the end of the test; it skips when the
// kernel lacks what the strategy needs (the message says what).
func newLoop(t testing.TB, opts ...Option) *Loop {
	t.Helper()
	l, err := New(opts...)
	if errors.Is(err, uring.ErrUnsupported) {
		var c config
		for _, o := range opts {
			o(&c)
		}
		t.Skipf("%v loop unavailable here: %v", c.Strategy, err)
	}
	require.NoError(t, err)
	t.Cleanup(func() {
		err := l.Close()
		if err != nil && !errors.Is(err, uring.ErrClosed) {
			t.Errorf("Close: %v", err)
		}
		if v := l.violation.Load(); v != 0 {
			t.Errorf("%d ring calls off the loop thread", v)
		}
	})
	return l
}

func prepNop(s *sys.SQE) error {
	*s = sys.SQE{Opcode: sys.OpNop, Fd: -1}
	return nil
}

// rawRing makes the ring a loop with config c would own (for raw
// baselines that must run on the same ring).
func rawRing(opts ...Option) (*uring.Ring, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if err := c.setDefaults(); err != nil {
		return nil, err
	}
	cc, err := newCoreConfig(c.coreOptions())
	if err != nil {
		return nil, err
	}
	return newCoreRing(&cc)
}

// requireNops skips the subtest of a NOP-driven test for an IOPOLL
// strategy where the kernel refuses NOPs on IOPOLL rings: it takes them
// from 5.19 ("io_uring: allow NOP opcode in IOPOLL mode"); before, each
// NOP fails with EINVAL (testutil.Require fails the test from 5.19 on).
func requireNops(t testing.TB, st Strategy) {
	t.Helper()
	if st == IOPoll || st == HybridIOPoll {
		testutil.Require(t, iopollNops())
	}
}

var iopollNops = sync.OnceValue(func() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, err := uring.New(2, uring.WithIOPoll())
	if err != nil {
		return err
	}
	defer r.Close()
	s, err := r.GetSQE()
	if err != nil {
		return err
	}
	sqe.Nop(s)
	if _, err := r.SubmitAndWait(1); err != nil {
		return err
	}
	c, err := r.WaitCQE()
	if err != nil {
		return err
	}
	res := c.Res
	r.CQESeen(c)
	if res == -int32(unix.EINVAL) {
		return &uring.UnsupportedError{Feature: "NOP on an IOPOLL ring", MinimumVersion: "5.19",
			Kernel: uring.KernelRelease(), Err: unix.EINVAL}
	}
	return nil
})
