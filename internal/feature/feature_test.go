//go:build linux

package feature

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestErrUnsupported(t *testing.T) {
	require.ErrorIs(t, ErrUnsupported, errors.ErrUnsupported)
	inner := os.NewSyscallError("io_uring_setup", unix.EINVAL)
	e := &UnsupportedError{Feature: "opcode IORING_OP_MSG_RING", MinimumVersion: "5.18", Kernel: "5.10.0-46-amd64", Err: unix.EINVAL}
	require.Equal(t, "uring: opcode IORING_OP_MSG_RING needs Linux 5.18; this kernel is 5.10.0-46-amd64 (invalid argument)", e.Error())
	require.ErrorIs(t, e, ErrUnsupported)
	require.ErrorIs(t, e, errors.ErrUnsupported)
	require.ErrorIs(t, e, unix.EINVAL, "the kernel's answer stays visible")
	require.False(t, e.KernelHasIt())

	err := unsupported("setup flag IORING_SETUP_SQE_MIXED", "6.19", "", inner)
	require.ErrorIs(t, err, ErrUnsupported)
	require.ErrorIs(t, err, unix.EINVAL)
	require.True(t, isUnsupported(fmt.Errorf("wrapped: %w", err)))
	require.False(t, isUnsupported(errors.New("other")))
	ue := AsUnsupported(fmt.Errorf("wrapped: %w", err))
	require.NotNil(t, ue)
	require.Equal(t, "6.19", ue.MinimumVersion)
	require.Equal(t, KernelRelease(), ue.Kernel)
	require.Nil(t, AsUnsupported(errors.New("other")))

	for _, c := range []struct {
		e    UnsupportedError
		want string
	}{
		{UnsupportedError{Feature: "io_uring", Reason: "kernel.io_uring_disabled = 2 disables io_uring", Err: inner},
			"uring: unavailable: kernel.io_uring_disabled = 2 disables io_uring (io_uring_setup: invalid argument)"},
		{UnsupportedError{Feature: "io_uring", Reason: "no io_uring on darwin"}, "uring: unavailable: no io_uring on darwin"},
		{UnsupportedError{Feature: "opcode IORING_OP_SEND", Kernel: "6.1", Reason: "built without it"},
			"uring: opcode IORING_OP_SEND unavailable: built without it"},
		{UnsupportedError{Feature: "opcode IORING_OP_SEND", Kernel: "6.1"}, "uring: opcode IORING_OP_SEND unavailable on kernel 6.1"},
		{UnsupportedError{Feature: "opcode IORING_OP_NOP128", MinimumVersion: "6.19", Kernel: "6.18.0", Reason: "the kernel knows opcodes up to IORING_OP_PIPE"},
			"uring: opcode IORING_OP_NOP128 needs Linux 6.19; this kernel is 6.18.0: the kernel knows opcodes up to IORING_OP_PIPE"},
		{UnsupportedError{Feature: "x", MinimumVersion: "6.19"}, "uring: x needs Linux 6.19"},
	} {
		require.Equal(t, c.want, c.e.Error())
		require.ErrorIs(t, &c.e, ErrUnsupported)
	}
	require.True(t, (&UnsupportedError{MinimumVersion: "5.1", Kernel: "6.18.3-x"}).KernelHasIt())
	require.True(t, (&UnsupportedError{MinimumVersion: "6.18", Kernel: "6.18.3-x"}).KernelHasIt())
	require.False(t, (&UnsupportedError{MinimumVersion: "6.19", Kernel: "6.18.3-x"}).KernelHasIt())
	require.False(t, (&UnsupportedError{MinimumVersion: "6.1", Kernel: ""}).KernelHasIt())
	require.False(t, (&UnsupportedError{MinimumVersion: "", Kernel: "6.18"}).KernelHasIt())
}

func TestNames(t *testing.T) {
	require.Equal(t, "IORING_OP_READ", OpName(sys.OpRead))
	require.Equal(t, "200", OpName(200))
	require.Equal(t, "IORING_SETUP_SQPOLL|IORING_SETUP_SQ_AFF", SetupFlagName(sys.SetupSQPoll|sys.SetupSQAff))
	require.Equal(t, "0x10000000", SetupFlagName(1<<28))
	require.Equal(t, "IORING_ENTER_GETEVENTS|0x100", EnterFlagName(sys.EnterGetEvents|1<<8))
	require.Equal(t, "IORING_FEAT_NODROP", FeatureName(sys.FeatNoDrop))
	require.Equal(t, "IORING_REGISTER_PBUF_RING", RegisterOpName(sys.RegisterPbufRing))
	require.Equal(t, "IORING_UNREGISTER_FILES", RegisterOpName(sys.UnregisterFiles))
	require.Equal(t, "IORING_REGISTER_USE_REGISTERED_RING", RegisterOpName(sys.RegisterUseRegisteredRing))
	require.Equal(t, "IORING_REGISTER_PBUF_STATUS|IORING_REGISTER_USE_REGISTERED_RING",
		RegisterOpName(sys.RegisterPbufStatus|sys.RegisterUseRegisteredRing))
	require.Equal(t, "200", RegisterOpName(200))
}

func TestCompareRelease(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"6.18.44-fc-v782", "6.18", 1},
		{"6.18", "6.18.0", 0},
		{"6.9", "6.18", -1},
		{"6.18.44-fc", "6.19", -1},
		{"7.0-rc1", "6.19", 1},
		{"5.15.0-91-generic", "5.15", 0},
		{"6.1", "6.1", 0},
		{"10.0", "9.99", 1},
	} {
		got, err := compareRelease(c.a, c.b)
		require.NoError(t, err, "%s vs %s", c.a, c.b)
		require.Equal(t, c.want, got, "%s vs %s", c.a, c.b)
	}
	_, err := compareRelease("", "6.1")
	require.Error(t, err)
	_, err = compareRelease("6.1", "linux")
	require.ErrorContains(t, err, `"linux"`)
}

func TestCacheKeepsOnlyFinalAnswers(t *testing.T) {
	var c cache[int]
	calls := 0
	failed := errors.New("probe failed")
	probe := func() error { calls++; return notFinal(failed) }
	require.Same(t, failed, c.get(1, probe), "the transient mark is stripped")
	require.Same(t, failed, c.get(1, probe))
	require.Equal(t, 2, calls, "a failed probe is asked again")

	no := unsupported("x", "", "", nil)
	calls = 0
	for i := 0; i < 3; i++ {
		require.Same(t, no, c.get(2, func() error { calls++; return no }))
		require.Nil(t, c.get(3, func() error { calls++; return nil }))
	}
	require.Equal(t, 2, calls, "yes and no are asked once")
	c.reset()
	require.Nil(t, c.get(2, func() error { return nil }), "reset forgets")
	require.Same(t, failed, unwrapTransient(notFinal(failed)))
	require.Equal(t, failed.Error(), notFinal(failed).Error())
}

func TestSinceTables(t *testing.T) {
	for _, f := range sys.FeatureList {
		require.NotEmpty(t, FeatureSince(f), "%v", f)
	}
	require.Equal(t, "6.15", FeatureSince(sys.FeatNoIOWait))
	require.Equal(t, "", FeatureSince(sys.FeatSingleMmap|sys.FeatNoDrop))
	for f := sys.EnterGetEvents; f <= sys.EnterNoIOWait; f <<= 1 {
		require.NotEmpty(t, EnterFlagSince(f), "%v", f)
	}
	require.Equal(t, "", EnterFlagSince(1<<8))
}

func TestCapabilityTable(t *testing.T) {
	require.Len(t, Capabilities(), int(capCount))
	seen := map[string]bool{}
	for i, c := range Capabilities() {
		require.Equal(t, Capability(i), c)
		require.True(t, c.Valid())
		require.NotEmpty(t, c.String())
		require.NotEmpty(t, c.CName(), "%v", c)
		require.NotEmpty(t, c.Since(), "%v", c)
		require.NotEmpty(t, c.feature(), "%v", c)
		require.False(t, seen[c.String()], "%v named twice", c)
		seen[c.String()] = true
		_, err := parseRelease(c.Since())
		require.NoError(t, err)
	}
	require.Equal(t, "multishot accept", CapMultishotAccept.String())
	require.Equal(t, "IOU_PBUF_RING_INC", CapBufRingInc.CName())
	require.Equal(t, "6.12", CapBufRingInc.Since())
	require.Equal(t, "buffer ring flag IOU_PBUF_RING_INC", CapBufRingInc.feature())
	require.False(t, capCount.Valid())
	require.Equal(t, "capability 99", Capability(99).String())
	require.Empty(t, Capability(-1).Since())
	require.Empty(t, Capability(-1).CName())
}
