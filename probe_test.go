//go:build linux

package uring_test

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

func needIOUring(t *testing.T) {
	t.Helper()
	if err := uring.CheckAvailable(); err != nil {
		require.ErrorIs(t, err, uring.ErrUnsupported, "only 'unavailable' may skip")
		t.Skipf("io_uring unavailable here: %v", err)
	}
}

// is618 reports whether the exact answers of Linux 6.18 apply.
func is618(t *testing.T) bool {
	ok, err := uring.KernelAtLeast("6.18")
	require.NoError(t, err)
	return ok && uring.CheckOp(sys.OpNop128) != nil
}

// requireAnswer checks one answer against the release table: supported, or
// an *UnsupportedError naming cname, whose MinimumVersion is since (and
// newer than this kernel) or empty (not a question of versions).
func requireAnswer(t *testing.T, err error, what, since string) {
	t.Helper()
	if err == nil {
		return
	}
	var ue *uring.UnsupportedError
	require.ErrorAs(t, err, &ue, "%s: %v", what, err)
	require.ErrorIs(t, err, uring.ErrUnsupported)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.Contains(t, ue.Feature, what)
	require.Equal(t, uring.KernelRelease(), ue.Kernel)
	if ue.MinimumVersion != "" {
		require.Equal(t, since, ue.MinimumVersion, "%s", what)
		require.False(t, ue.KernelHasIt(), "kernel %s is at least %s but the probe says %v", ue.Kernel, since, err)
	}
}

// Every probe answers on this kernel, with a release for everything this
// package knows, and a "no" only for what is newer than the kernel.
func TestSupportsAnswersByRelease(t *testing.T) {
	needIOUring(t)
	for op := sys.Op(0); op < sys.OpLast; op++ {
		require.NotEmpty(t, op.Since(), "%v", op)
		requireAnswer(t, uring.CheckOp(op), uring.OpName(op), op.Since())
	}
	for _, f := range sys.SetupFlagList {
		require.NotEmpty(t, f.Since(), "%v", f)
		requireAnswer(t, uring.CheckSetupFlag(f), uring.SetupFlagName(f), f.Since())
	}
	for _, f := range sys.FeatureList {
		require.NotEmpty(t, uring.FeatureSince(f), "%v", f)
		requireAnswer(t, uring.CheckFeature(f), uring.FeatureName(f), uring.FeatureSince(f))
	}
	for op := sys.RegisterOp(0); op < sys.RegisterOpLast; op++ {
		require.NotEmpty(t, op.Since(), "%v", op)
		requireAnswer(t, uring.CheckRegisterOp(op), uring.RegisterOpName(op), op.Since())
	}
	for f := sys.EnterGetEvents; f <= sys.EnterNoIOWait; f <<= 1 {
		require.NotEmpty(t, uring.EnterFlagSince(f), "%v", f)
		requireAnswer(t, uring.CheckEnterFlag(f), uring.EnterFlagName(f), uring.EnterFlagSince(f))
	}
	for _, c := range uring.Capabilities() {
		require.NotEmpty(t, c.Since(), "%v", c)
		err := uring.CheckCapability(c)
		requireAnswer(t, err, "", c.Since())
		if ok, _ := uring.KernelAtLeast(c.Since()); ok {
			require.NoError(t, err, "%v: kernel %s is at least %s", c, uring.KernelRelease(), c.Since())
		} else if err != nil { // an older kernel may have it backported (Debian's 5.10 has 5.15's io_uring)
			require.Equal(t, c.Since(), asUnsupported(t, err).MinimumVersion, "%v", c)
		}
	}
}

// The exact answers of Linux 6.18.
func TestSupports618(t *testing.T) {
	needIOUring(t)
	if !is618(t) {
		t.Skipf("the exact answers are Linux 6.18's; running %s", uring.KernelRelease())
	}
	for op := sys.Op(0); op <= sys.OpPipe; op++ {
		require.NoError(t, uring.CheckOp(op), "%v", op)
	}
	for _, op := range []sys.Op{sys.OpNop128, sys.OpUringCmd128} {
		err := uring.CheckOp(op)
		require.ErrorIs(t, err, uring.ErrUnsupported)
		ue := asUnsupported(t, err)
		require.Equal(t, "opcode "+uring.OpName(op), ue.Feature)
		require.Equal(t, "6.19", ue.MinimumVersion)
		require.Contains(t, err.Error(), "uring: opcode IORING_OP_"+op.String()+" needs Linux 6.19; this kernel is "+uring.KernelRelease())
	}
	for _, f := range sys.SetupFlagList {
		if f <= sys.SetupCQEMixed {
			require.NoError(t, uring.CheckSetupFlag(f), "%v", f)
		} else {
			err := uring.CheckSetupFlag(f)
			require.ErrorIs(t, err, syscall.EINVAL)
			require.Equal(t, f.Since(), asUnsupported(t, err).MinimumVersion)
		}
	}
	require.NoError(t, uring.CheckSetupFlag(sys.SetupSingleIssuer|sys.SetupDeferTaskrun))
	err := uring.CheckSetupFlag(sys.SetupSQPoll | sys.SetupSQEMixed | sys.SetupSQRewind)
	require.Equal(t, "setup flag IORING_SETUP_SQE_MIXED", asUnsupported(t, err).Feature, "the lowest missing flag")
	for _, f := range sys.FeatureList {
		require.NoError(t, uring.CheckFeature(f), "%v", f)
	}
	require.NoError(t, uring.CheckFeature(sys.FeatExtArg|sys.FeatNoIOWait))
	err = uring.CheckFeature(sys.FeatExtArg | 1<<30)
	require.Equal(t, "feature 0x40000000", asUnsupported(t, err).Feature)
	for op := sys.RegisterOp(0); op <= sys.RegisterQuery; op++ {
		require.NoError(t, uring.CheckRegisterOp(op), "%v", op)
	}
	require.NoError(t, uring.CheckRegisterOp(sys.RegisterPbufRing|sys.RegisterUseRegisteredRing))
	err = uring.CheckRegisterOp(sys.RegisterBPFFilter)
	require.Equal(t, "register opcode IORING_REGISTER_BPF_FILTER", asUnsupported(t, err).Feature)
	require.Equal(t, "7.0", asUnsupported(t, err).MinimumVersion)
	require.NoError(t, uring.CheckEnterFlag(sys.EnterGetEvents|sys.EnterNoIOWait))
	err = uring.CheckEnterFlag(sys.EnterGetEvents | 1<<8)
	require.Equal(t, "enter flag 0x100", asUnsupported(t, err).Feature)
	require.Empty(t, asUnsupported(t, err).MinimumVersion, "an unknown flag has no release")
	for _, c := range uring.Capabilities() {
		if c == uring.CapSocketGetsockname {
			err := uring.CheckCapability(c)
			require.Equal(t, "6.19", asUnsupported(t, err).MinimumVersion)
			require.ErrorIs(t, err, syscall.EOPNOTSUPP)
			continue
		}
		require.NoError(t, uring.CheckCapability(c), "%v", c)
	}
	l, err := uring.KernelLimits()
	require.NoError(t, err)
	require.Equal(t, uring.Limits{MaxSQEntries: uring.MaxEntries, MaxCQEntries: uring.MaxCQEntries}, l)
	v, err := uring.IOUringDisabled()
	require.NoError(t, err)
	require.Equal(t, 0, v)
}

func TestSupportsBadArguments(t *testing.T) {
	for _, err := range []error{
		uring.CheckSetupFlag(0), uring.CheckEnterFlag(0), uring.CheckFeature(0),
		uring.CheckCapability(-1), uring.CheckCapability(uring.Capability(len(uring.Capabilities()))),
	} {
		if errors.Is(err, uring.ErrUnsupported) {
			require.Equal(t, "io_uring", asUnsupported(t, err).Feature, "only off Linux")
			continue
		}
		require.Error(t, err)
	}
}

func TestKernelRelease(t *testing.T) {
	if runtime.GOOS != "linux" {
		require.Empty(t, uring.KernelRelease())
		return
	}
	require.NotEmpty(t, uring.KernelRelease())
	ok, err := uring.KernelAtLeast("5.1")
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = uring.KernelAtLeast("99.0")
	require.NoError(t, err)
	require.False(t, ok)
	ok, err = uring.KernelAtLeast(uring.KernelRelease())
	require.NoError(t, err)
	require.True(t, ok)
	_, err = uring.KernelAtLeast("linux")
	require.ErrorContains(t, err, `"linux"`)
}

func TestCapabilityNames(t *testing.T) {
	caps := uring.Capabilities()
	require.Len(t, caps, int(uring.CapTimeoutETimeSuccess)+1)
	for i, c := range caps {
		require.Equal(t, uring.Capability(i), c)
		require.NotEmpty(t, c.String())
		require.NotEmpty(t, c.CName())
		require.NotEmpty(t, c.Since())
	}
	require.Equal(t, "multishot accept", uring.CapMultishotAccept.String())
	require.Equal(t, "IORING_ACCEPT_MULTISHOT", uring.CapMultishotAccept.CName())
	require.Equal(t, "5.19", uring.CapMultishotAccept.Since())
	require.Equal(t, "6.4", uring.CapBufRingMmap.Since())
	require.Equal(t, "6.12", uring.CapBufRingInc.Since())
	require.Equal(t, "IOU_PBUF_RING_INC", uring.CapBufRingInc.CName())
	require.Empty(t, uring.Capability(-1).Since())
	require.Equal(t, "IORING_OP_READ", uring.OpName(sys.OpRead))
	require.Equal(t, "IORING_SETUP_DEFER_TASKRUN", uring.SetupFlagName(sys.SetupDeferTaskrun))
	require.Equal(t, "IORING_REGISTER_PBUF_RING", uring.RegisterOpName(sys.RegisterPbufRing))
	require.Equal(t, "IORING_FEAT_NODROP", uring.FeatureName(sys.FeatNoDrop))
	require.Equal(t, "IORING_ENTER_EXT_ARG", uring.EnterFlagName(sys.EnterExtArg))
	require.Equal(t, "5.11", uring.FeatureSince(sys.FeatExtArg))
	require.Equal(t, "5.11", uring.EnterFlagSince(sys.EnterExtArg))
}

// Probe is the individual calls' answers, all at once.
func TestProbeReport(t *testing.T) {
	rep, err := uring.Probe()
	require.NotNil(t, rep)
	require.Equal(t, uring.KernelRelease(), rep.Kernel)
	if aerr := uring.CheckAvailable(); aerr != nil {
		require.ErrorIs(t, err, uring.ErrUnsupported)
		require.Equal(t, aerr.Error(), rep.Unavailable.Error())
		require.Empty(t, rep.Opcodes)
		t.Skipf("io_uring unavailable: %v", aerr)
	}
	require.NoError(t, err)
	require.NoError(t, rep.Unavailable)
	require.Empty(t, rep.Errors)
	require.NotNil(t, rep.Limits)
	l, err := uring.KernelLimits()
	require.NoError(t, err)
	require.Equal(t, l, *rep.Limits)
	if v, err := uring.IOUringDisabled(); err == nil {
		require.Equal(t, v, rep.IOUringDisabled)
	} else {
		require.ErrorIs(t, err, os.ErrNotExist)
		require.Equal(t, -1, rep.IOUringDisabled)
	}
	devs, err := uring.PolledBlockDevices()
	require.NoError(t, err)
	require.Equal(t, devs, rep.BlockDevices)

	check := func(items []uring.ProbeItem, n int, answer func(v uint64) error) {
		t.Helper()
		require.Len(t, items, n)
		for _, it := range items {
			want := answer(it.Value)
			require.Equal(t, want == nil, it.Supported, "%s", it.CName)
			if want != nil {
				require.Equal(t, want.Error(), it.Err.Error(), "%s", it.CName)
				require.False(t, it.Failed())
			}
			require.NotEmpty(t, it.Name)
			require.NotEmpty(t, it.CName)
			require.NotEmpty(t, it.Since, "%s", it.CName)
		}
	}
	check(rep.Opcodes, int(sys.OpLast), func(v uint64) error { return uring.CheckOp(sys.Op(v)) })
	check(rep.SetupFlags, len(sys.SetupFlagList), func(v uint64) error { return uring.CheckSetupFlag(sys.SetupFlags(v)) })
	check(rep.Features, len(sys.FeatureList), func(v uint64) error { return uring.CheckFeature(sys.Features(v)) })
	check(rep.RegisterOps, int(sys.RegisterOpLast)+1, func(v uint64) error { return uring.CheckRegisterOp(sys.RegisterOp(v)) })
	check(rep.EnterFlags, 8, func(v uint64) error { return uring.CheckEnterFlag(sys.EnterFlags(v)) })
	check(rep.Capabilities, len(uring.Capabilities()), func(v uint64) error { return uring.CheckCapability(uring.Capability(v)) })
	require.Equal(t, "IORING_OP_NOP", rep.Opcodes[0].CName)
	require.Equal(t, "NOP", rep.Opcodes[0].Name)
	require.Equal(t, "IORING_REGISTER_USE_REGISTERED_RING", rep.RegisterOps[len(rep.RegisterOps)-1].CName)
	require.Equal(t, "6.3", rep.RegisterOps[len(rep.RegisterOps)-1].Since)
	require.Equal(t, "multishot poll", rep.Capabilities[0].Name)
}

// New names a setup flag this kernel lacks, with the release that added
// it, instead of a bare EINVAL.
func TestNewNamesMissingSetupFlag(t *testing.T) {
	needIOUring(t)
	needs := map[sys.SetupFlags]sys.SetupFlags{
		sys.SetupSQAff: sys.SetupSQPoll, sys.SetupTaskrunFlag: sys.SetupCoopTaskrun,
		sys.SetupDeferTaskrun: sys.SetupSingleIssuer, sys.SetupRegisteredFdOnly: sys.SetupNoMmap,
		sys.SetupHybridIOPoll: sys.SetupIOPoll, sys.SetupSQRewind: sys.SetupNoSQArray,
	}
	var missing sys.SetupFlags
	for _, f := range sys.SetupFlagList {
		if err := uring.CheckSetupFlag(f); err != nil {
			require.ErrorIs(t, err, uring.ErrUnsupported)
			missing = f
			break
		}
	}
	if missing == 0 {
		t.Skip("this kernel has every setup flag this package knows")
	}
	runtime.LockOSThread() // SINGLE_ISSUER rings belong to their thread
	defer runtime.UnlockOSThread()
	r, err := uring.New(4, uring.WithFlags(missing|needs[missing]))
	require.Nil(t, r)
	require.ErrorIs(t, err, uring.ErrUnsupported)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.ErrorIs(t, err, syscall.EINVAL, "the kernel's answer stays visible")
	ue := asUnsupported(t, err)
	require.Equal(t, "setup flag "+uring.SetupFlagName(missing), ue.Feature)
	require.Equal(t, missing.Since(), ue.MinimumVersion)
	var se *os.SyscallError
	require.ErrorAs(t, err, &se, "Err is New's own io_uring_setup answer")
	require.Contains(t, err.Error(), "needs Linux "+missing.Since()+"; this kernel is "+uring.KernelRelease())
}

// An EINVAL about values, with flags the kernel has, stays the kernel's
// error.
func TestNewEINVALNotUnsupported(t *testing.T) {
	needIOUring(t)
	require.NoError(t, uring.CheckSetupFlag(sys.SetupSQPoll|sys.SetupSQAff))
	r, err := uring.New(4, uring.WithSQPoll(0), uring.WithSQPollCPU(1<<20)) // no such CPU
	require.Nil(t, r)
	require.ErrorIs(t, err, syscall.EINVAL)
	require.NotErrorIs(t, err, uring.ErrUnsupported)
}

// asUnsupported returns the *UnsupportedError in err, failing the test when
// there is none.
func asUnsupported(t *testing.T, err error) *uring.UnsupportedError {
	t.Helper()
	var ue *uring.UnsupportedError
	require.ErrorAs(t, err, &ue)
	return ue
}
