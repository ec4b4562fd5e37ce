//go:build linux

package feature

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// This machine: Linux 6.18, io_uring enabled, opcodes up to PIPE, setup
// flags up to CQE_MIXED, disk vda without poll queues. Tests that need it
// skip elsewhere with the reason.
func need618(t *testing.T) {
	t.Helper()
	require.NoError(t, Available())
	if ok, err := KernelAtLeast("6.18"); err != nil || !ok {
		t.Skipf("needs Linux 6.18 for exact answers; running %s", KernelRelease())
	}
}

func resetCaches() {
	setupCache.reset()
	enterCache.reset()
	registerCache.reset()
	capCache.reset()
}

func requireUnsupported(t *testing.T, err error, contains ...string) {
	t.Helper()
	require.ErrorIs(t, err, ErrUnsupported)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	for _, s := range contains {
		require.ErrorContains(t, err, s)
	}
}

// requireVersion checks the *UnsupportedError in err: what it names, the
// release it says added it, and the running kernel.
func requireVersion(t *testing.T, err error, feature, since string) {
	t.Helper()
	ue := AsUnsupported(err)
	require.NotNil(t, ue, "%v", err)
	require.Equal(t, feature, ue.Feature)
	require.Equal(t, since, ue.MinimumVersion)
	require.Equal(t, KernelRelease(), ue.Kernel)
}

func TestAvailableAndSysctl(t *testing.T) {
	require.NoError(t, Available())
	v, err := IOUringDisabled()
	if errors.Is(err, os.ErrNotExist) {
		// The sysctl is 6.6's: before it, nothing is disabled by it.
		newer, kerr := KernelAtLeast("6.6")
		require.NoError(t, kerr)
		require.False(t, newer, "kernel %s is 6.6+ and has no kernel.io_uring_disabled: %v", KernelRelease(), err)
		return
	}
	require.NoError(t, err)
	require.Equal(t, 0, v)
}

func TestExplain(t *testing.T) {
	dir := t.TempDir()
	old := disabledSysctl
	t.Cleanup(func() { disabledSysctl = old })
	eperm := os.NewSyscallError("io_uring_setup", unix.EPERM)
	enosys := os.NewSyscallError("io_uring_setup", unix.ENOSYS)

	for _, c := range []struct {
		setting string // "" = no sysctl file
		err     error
		want    string
	}{
		{"2", eperm, "kernel.io_uring_disabled = 2 disables io_uring for every process"},
		{"1", eperm, "kernel.io_uring_disabled = 1 allows io_uring only to CAP_SYS_ADMIN"},
		{"0", eperm, "kernel.io_uring_disabled = 0, so a seccomp filter"},
		{"0", enosys, "kernel.io_uring_disabled = 0, so a seccomp filter"},
		{"", enosys, "the kernel has no io_uring"},
		{"", eperm, "cannot be read"},
	} {
		disabledSysctl = filepath.Join(dir, "missing")
		if c.setting != "" {
			disabledSysctl = filepath.Join(dir, "io_uring_disabled")
			require.NoError(t, os.WriteFile(disabledSysctl, []byte(c.setting+"\n"), 0o644))
		}
		err := Explain(c.err)
		requireUnsupported(t, err, c.want)
		requireVersion(t, err, "io_uring", "")
		require.Equal(t, c.err, AsUnsupported(err).Err)
		require.ErrorIs(t, err, errnoOf(c.err), "the errno stays visible")
	}
	einval := os.NewSyscallError("io_uring_setup", unix.EINVAL)
	require.Same(t, einval, Explain(einval).(*os.SyscallError), "other errors pass through")
	require.Nil(t, Explain(nil))

	disabledSysctl = filepath.Join(dir, "garbage")
	require.NoError(t, os.WriteFile(disabledSysctl, []byte("x\n"), 0o644))
	_, err := IOUringDisabled()
	require.ErrorContains(t, err, `"x"`)
	disabledSysctl = filepath.Join(dir, "missing")
	v, err := IOUringDisabled()
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Equal(t, -1, v)
}

func TestKernelRelease(t *testing.T) {
	var u unix.Utsname
	require.NoError(t, unix.Uname(&u))
	require.Equal(t, unix.ByteSliceToString(u.Release[:]), KernelRelease())
	ok, err := KernelAtLeast("5.1")
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = KernelAtLeast("99.0")
	require.NoError(t, err)
	require.False(t, ok)
}

func TestOp(t *testing.T) {
	need618(t)
	for _, op := range []sys.Op{sys.OpNop, sys.OpRead, sys.OpUringCmd, sys.OpFutexWaitv, sys.OpPipe} {
		require.NoError(t, Op(op), "%v", op)
	}
	requireUnsupported(t, Op(sys.OpNop128), "opcode IORING_OP_NOP128 needs Linux 6.19", "up to IORING_OP_PIPE")
	requireVersion(t, Op(sys.OpNop128), "opcode IORING_OP_NOP128", "6.19")
	requireUnsupported(t, Op(sys.OpUringCmd128))
	requireUnsupported(t, Op(200), "opcode 200")
	requireVersion(t, Op(200), "opcode 200", "")
	require.NotNil(t, probeTab, "the probe is cached")
}

func TestSetupFlag(t *testing.T) {
	need618(t)
	resetCaches()
	for _, f := range sys.SetupFlagList {
		err := SetupFlag(f)
		if f <= sys.SetupCQEMixed {
			require.NoError(t, err, "%v", f)
			continue
		}
		requireUnsupported(t, err, "IORING_SETUP_"+f.String())
		requireVersion(t, err, "setup flag IORING_SETUP_"+f.String(), f.Since())
		require.ErrorIs(t, err, unix.EINVAL)
	}
	requireUnsupported(t, SetupFlag(1<<28), "0x10000000")
	requireVersion(t, SetupFlag(1<<28), "setup flag 0x10000000", "")

	err := SetupFlag(0)
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrUnsupported)
	err = SetupFlag(sys.SetupSQPoll | sys.SetupIOPoll)
	require.ErrorContains(t, err, "exactly one flag")
	require.NotErrorIs(t, err, ErrUnsupported)
}

func TestEnterFlag(t *testing.T) {
	need618(t)
	resetCaches()
	for f := sys.EnterGetEvents; f <= sys.EnterNoIOWait; f <<= 1 {
		require.NoError(t, EnterFlag(f), "%v", f)
		require.NotEmpty(t, EnterFlagSince(f))
	}
	requireUnsupported(t, EnterFlag(1<<8), "0x100")
	requireVersion(t, EnterFlag(1<<8), "enter flag 0x100", "")
	require.Error(t, EnterFlag(3))
}

func TestRegisterOp(t *testing.T) {
	need618(t)
	resetCaches()
	for op := sys.RegisterBuffers; op <= sys.RegisterQuery; op++ {
		require.NoError(t, RegisterOp(op), "%v", op)
	}
	require.NoError(t, RegisterOp(sys.RegisterUseRegisteredRing))
	require.NoError(t, RegisterOp(sys.RegisterPbufStatus|sys.RegisterUseRegisteredRing))
	requireUnsupported(t, RegisterOp(sys.RegisterZcrxCtrl|sys.RegisterUseRegisteredRing), "ZCRX_CTRL")
	for _, op := range []sys.RegisterOp{sys.RegisterZcrxCtrl, sys.RegisterBPFFilter, 38, 200} {
		requireUnsupported(t, RegisterOp(op), "knows 36 register opcodes")
		requireVersion(t, RegisterOp(op), "register opcode "+RegisterOpName(op), op.Since())
	}
	requireVersion(t, RegisterOp(sys.RegisterBPFFilter), "register opcode IORING_REGISTER_BPF_FILTER", "7.0")
	// Every opcode the table tries is one the package knows.
	for op := range regTries {
		require.NotEmpty(t, op.Since(), "%v", op)
	}
}

// TestQueryAgrees cross-checks the try-and-see answers with the masks the
// kernel itself reports through REGISTER_QUERY (6.18).
func TestQueryAgrees(t *testing.T) {
	need618(t)
	q, err := Query()
	require.NoError(t, err)
	require.Equal(t, uint32(sys.OpPipe)+1, q.NrRequestOpcodes)
	require.Equal(t, uint32(sys.RegisterQuery)+1, q.NrRegisterOpcodes)
	for _, f := range sys.SetupFlagList {
		require.Equal(t, q.RingSetupFlags&uint64(f) != 0, SetupFlag(f) == nil, "setup flag %v", f)
	}
	for f := sys.EnterFlags(1); f != 0 && f <= 1<<12; f <<= 1 {
		require.Equal(t, q.EnterFlags&uint64(f) != 0, EnterFlag(f) == nil, "enter flag %v", f)
	}
	feats, err := Features()
	require.NoError(t, err)
	require.Equal(t, q.FeatureFlags, uint64(feats))
	for op := sys.Op(0); op < 70; op++ {
		require.Equal(t, uint32(op) < q.NrRequestOpcodes, Op(op) == nil, "opcode %v", op)
	}
	for op := sys.RegisterOp(0); op < 40; op++ {
		require.Equal(t, uint32(op) < q.NrRegisterOpcodes, RegisterOp(op) == nil, "register opcode %v", op)
	}
}

func TestFeaturesAndLimits(t *testing.T) {
	need618(t)
	f, err := Features()
	require.NoError(t, err)
	for _, b := range sys.FeatureList {
		require.NotZero(t, f&b, "%v", b)
	}
	l, err := MaxEntries()
	require.NoError(t, err)
	require.Equal(t, Limits{MaxSQEntries: 32768, MaxCQEntries: 65536}, l)
}

func TestPolledIO(t *testing.T) {
	devs, err := PolledIO()
	require.NoError(t, err)
	names := map[string]BlockDevice{}
	for _, d := range devs {
		names[d.Name] = d
		require.NotEmpty(t, d.Reason, d.Name)
	}
	if vda, ok := names["vda"]; ok {
		require.False(t, vda.Polled)
		require.Contains(t, vda.Reason, "no poll queues")
	}

	// A made-up /sys/block: one polled nvme, one without io_poll.
	dir := t.TempDir()
	old := sysBlock
	sysBlock = dir
	t.Cleanup(func() { sysBlock = old })
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "nvme0n1", "queue"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nvme0n1", "queue", "io_poll"), []byte("1\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "md0", "queue"), 0o755))
	devs, err = PolledIO()
	require.NoError(t, err)
	require.Len(t, devs, 2)
	require.Equal(t, "md0", devs[0].Name)
	require.False(t, devs[0].Polled)
	require.Contains(t, devs[0].Reason, "no queue/io_poll")
	require.Equal(t, "nvme0n1", devs[1].Name)
	require.True(t, devs[1].Polled)
	require.True(t, strings.HasPrefix(devs[1].Reason, "poll queues available"))

	sysBlock = filepath.Join(dir, "missing")
	_, err = PolledIO()
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestNoLeaks runs every probe uncached and checks that no fd, io_uring
// mapping or registered ring is left behind.
func TestNoLeaks(t *testing.T) {
	require.NoError(t, Available())
	count := func() (fds, maps int) {
		ents, err := os.ReadDir("/proc/self/fd")
		require.NoError(t, err)
		b, err := os.ReadFile("/proc/self/maps")
		require.NoError(t, err)
		return len(ents), strings.Count(string(b), "[io_uring]")
	}
	fds0, maps0 := count()
	resetCaches()
	all()
	fds1, maps1 := count()
	require.Equal(t, fds0, fds1, "fds")
	require.Equal(t, maps0, maps1, "io_uring mappings")
}

// all asks every probe once.
func all() {
	for op := sys.Op(0); op < 66; op++ {
		Op(op)
	}
	for _, f := range sys.SetupFlagList {
		SetupFlag(f)
	}
	for f := sys.EnterFlags(1); f <= 1<<8; f <<= 1 {
		EnterFlag(f)
	}
	for op := sys.RegisterOp(0); op < 40; op++ {
		RegisterOp(op)
	}
	RegisterOp(sys.RegisterUseRegisteredRing)
	Features()
	MaxEntries()
	for _, c := range Capabilities() {
		Cap(c)
	}
}

func TestConcurrent(t *testing.T) {
	require.NoError(t, Available())
	resetCaches()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			all()
		}()
	}
	wg.Wait()
	require.NoError(t, Op(sys.OpNop))
}

// OpKnown agrees with Op on every opcode, lock-free once built.
func TestOpKnownAgreesWithOp(t *testing.T) {
	require.NoError(t, OpMiss(sys.OpNop), "NOP is in every kernel") // builds the mask
	for op := 0; op < 256; op++ {
		err := Op(sys.Op(op))
		require.Equal(t, err == nil, OpKnown(sys.Op(op)), "opcode %v: Op says %v", sys.Op(op), err)
	}
	require.True(t, OpKnown(sys.OpNop))
	require.False(t, OpKnown(255), "no kernel has opcode 255")
	require.Zero(t, testing.AllocsPerRun(100, func() { OpKnown(sys.OpRead) }))
}

// Every capability is answered, on any kernel: supported from the release
// that added it on; before that, an *UnsupportedError naming it and that
// release, or supported where the kernel has it backported (Debian's
// 5.10 carries 5.15's io_uring: multishot poll, 5.13, is there).
func TestCap(t *testing.T) {
	require.NoError(t, Available())
	resetCaches()
	for _, c := range Capabilities() {
		err := Cap(c)
		has, verr := KernelAtLeast(c.Since())
		require.NoError(t, verr)
		if has {
			require.NoError(t, err, "%v (%s) on %s", c, c.Since(), KernelRelease())
			continue
		}
		if err != nil {
			requireUnsupported(t, err)
			requireVersion(t, err, c.feature(), c.Since())
		}
	}
	err := Cap(-1)
	require.ErrorContains(t, err, "no such capability")
	require.NotErrorIs(t, err, ErrUnsupported)
	require.Error(t, Cap(capCount))
}

// The exact answers of Linux 6.18.
func TestCap618(t *testing.T) {
	need618(t)
	for _, c := range Capabilities() {
		if c == CapSocketGetsockname {
			requireVersion(t, Cap(c), "socket command SOCKET_URING_OP_GETSOCKNAME", "6.19")
			require.ErrorIs(t, Cap(c), unix.EOPNOTSUPP)
			continue
		}
		require.NoError(t, Cap(c), "%v", c)
	}
}

// The request helper of the capability probes: a request that fails its
// prep completes with -EINVAL, and one that never completes ends in the
// guard's timeout instead of a hang.
func TestProbeRingOne(t *testing.T) {
	require.NoError(t, Available())
	r, err := newRingProbe(8, 0)
	require.NoError(t, err)
	defer r.close()
	nop := func(s *sys.SQE) error { sqe.Nop(s); return nil }
	res, err := r.one(nop)
	require.NoError(t, err)
	require.Equal(t, int32(0), res.res)
	res, err = r.one(func(s *sys.SQE) error { sqe.Nop(s); s.Opcode = 255; return nil })
	require.NoError(t, err)
	require.Equal(t, -int32(unix.EINVAL), res.res)

	old := probeWait
	probeWait = 20 * time.Millisecond
	t.Cleanup(func() { probeWait = old })
	efd, err := r.eventfd() // never readable
	require.NoError(t, err)
	_, err = r.one(func(s *sys.SQE) error { return sqe.PollAdd(s, int(efd), unix.POLLIN) })
	require.ErrorIs(t, err, errProbeTimeout)
	res, err = r.one(nop)
	require.NoError(t, err, "the ring still works after a timeout")
	require.Equal(t, int32(0), res.res)

	// A multishot answer without F_MORE is a "no"; with it a "yes".
	require.NoError(t, multishotAnswer(CapMultishotPoll, cqe{res: 1, flags: sys.CQEFMore}))
	requireVersion(t, multishotAnswer(CapMultishotPoll, cqe{res: 1}), "multishot poll (IORING_POLL_ADD_MULTI)", "5.13")
	requireVersion(t, multishotAnswer(CapMultishotTimeout, cqe{res: -int32(unix.ETIME)}), "multishot timeout (IORING_TIMEOUT_MULTISHOT)", "6.4")
	require.NoError(t, multishotAnswer(CapMultishotTimeout, cqe{res: -int32(unix.ETIME), flags: sys.CQEFMore}))
	requireVersion(t, multishotAnswer(CapMultishotRecv, cqe{res: -int32(unix.EINVAL)}), "multishot recv (IORING_RECV_MULTISHOT)", "6.0")
	err = unwrapTransient(multishotAnswer(CapMultishotRecv, cqe{res: -int32(unix.ENOMEM)}))
	require.ErrorIs(t, err, unix.ENOMEM)
	require.NotErrorIs(t, err, ErrUnsupported)
}
