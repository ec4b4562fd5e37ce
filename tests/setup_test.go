//go:build linux

package tests

import (
	"errors"
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

const enomemChildEnv = "URING_TEST_ENOMEM_CHILD"

// vmSizeKB reads VmSize (the address space in use) from /proc/self/status.
func vmSizeKB(t testing.TB) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no VmSize")
	return 0
}

// TestHugeCQSizeENOMEMLeavesNothing: the largest ring (32768 SQEs, 65536
// CQEs: about 3 MiB to map) in a process whose address space has room for
// 1 MiB more (RLIMIT_AS) fails with a clean ENOMEM, and the fd and any ring
// mapped before the failure are gone. RLIMIT_AS is process-wide, so it runs
// in a child process; the plain and, where the kernel has it (6.5), the
// NO_MMAP (our own memory) paths.
func TestHugeCQSizeENOMEMLeavesNothing(t *testing.T) {
	if os.Getenv(enomemChildEnv) == "" {
		t.Log(testutil.Child(t, "TestHugeCQSizeENOMEMLeavesNothing", enomemChildEnv+"=1"))
		return
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no heap growth while limited
	for _, c := range []struct {
		name  string
		needs error
		opts  []uring.Option
	}{
		{"mmap", nil, []uring.Option{uring.WithCQSize(uring.MaxCQEntries)}},
		{"no-mmap", uring.CheckSetupFlag(sys.SetupNoMmap), []uring.Option{uring.WithCQSize(uring.MaxCQEntries), uring.WithNoMmap()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			testutil.Require(t, c.needs)
			hugeRingENOMEM(t, c.opts)
		})
	}
}

// hugeRingENOMEM makes the ring with opts once with enough address space,
// then with 1 MiB left, and checks the failure.
func hugeRingENOMEM(t *testing.T, opts []uring.Option) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The limited ring works with enough address space.
	r, err := uring.New(uring.MaxEntries, opts...)
	require.NoError(t, err)
	require.NoError(t, r.Close())

	spareThreads(4)
	before := testutil.Take()
	var old unix.Rlimit
	require.NoError(t, unix.Getrlimit(unix.RLIMIT_AS, &old))
	limit := vmSizeKB(t)*1024 + 1<<20
	require.NoError(t, unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: limit, Max: old.Max}))
	r, err = uring.New(uring.MaxEntries, opts...)
	require.NoError(t, unix.Setrlimit(unix.RLIMIT_AS, &old))
	if r != nil {
		r.Close()
	}
	require.Nil(t, r, "uring.New succeeded with 1 MiB of address space left")
	require.ErrorIs(t, err, syscall.ENOMEM, "%v", err)
	require.NotErrorIs(t, err, uring.ErrUnsupported)
	t.Logf("error: %v", err)
	require.Empty(t, testutil.Leaked(before), "a failed New leaves no fd or mapping")
}

// spareThreads leaves n idle OS threads with the Go runtime, so that the
// section run under a tight RLIMIT_AS need not create one: a syscall that
// blocks hands its P to another thread, and a new thread's stack would not
// fit (seen under -race: "runtime/cgo: pthread_create failed", an abort).
func spareThreads(n int) {
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			defer done.Done()
			runtime.LockOSThread() // each holds its own thread until released
			ready.Done()
			<-release
			runtime.UnlockOSThread() // the thread goes idle, not away
		}()
	}
	ready.Wait()
	close(release)
	done.Wait()
}

// TestMissingOpcodeRejectedBeforeSubmit: an opcode this kernel lacks (the
// oldest one newer than the kernel: IORING_OP_NOP128, 6.19, on 6.18) is
// reported by the probes, as an UnsupportedError naming the op and its
// release, before any SQE exists; nothing is queued. An SQE with it
// submitted anyway fails alone with EINVAL in its CQE and disturbs nothing
// around it.
func TestMissingOpcodeRejectedBeforeSubmit(t *testing.T) {
	op := testutil.MissingOp(t)
	err := uring.CheckOp(op)
	require.ErrorIs(t, err, uring.ErrUnsupported)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	var ue *uring.UnsupportedError
	require.ErrorAs(t, err, &ue)
	require.Contains(t, ue.Feature, uring.OpName(op))
	require.Equal(t, op.Since(), ue.MinimumVersion)
	require.NoError(t, uring.CheckOp(sys.OpNop), "the probe says yes to what the kernel has")

	r := ringtest.New(t, 8)
	p, err := reg.Probe(r)
	require.NoError(t, err)
	require.False(t, p.Supported(op))
	require.True(t, p.Supported(sys.OpRead))
	require.Zero(t, r.SQReady(), "probing queued nothing")
	require.Zero(t, r.CQReady())

	// Submitted regardless, between two NOPs: only it fails.
	for i, o := range []sys.Op{sys.OpNop, op, sys.OpNop} {
		s := getSQE(t, r)
		s.Opcode, s.Fd, s.UserData = o, -1, uint64(i)
	}
	cs := byUD(t, submitWait(t, r, 3))
	require.Equal(t, int32(0), cs[0].Res)
	require.Equal(t, -int32(unix.EINVAL), cs[1].Res)
	require.Equal(t, int32(0), cs[2].Res)
}
