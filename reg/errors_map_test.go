//go:build linux

package reg

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// fakeProbes makes the probes lacks asks answer "missing" for the given
// register opcodes and capabilities (as an older kernel would) and "yes"
// for everything else, whatever the kernel running the test.
func fakeProbes(t *testing.T, ops map[sys.RegisterOp]string, caps map[uring.Capability]bool) {
	t.Helper()
	oldOp, oldCap := supportsRegisterOp, supports
	t.Cleanup(func() { supportsRegisterOp, supports = oldOp, oldCap })
	supportsRegisterOp = func(op sys.RegisterOp) error {
		if since, ok := ops[op]; ok {
			return &uring.UnsupportedError{Feature: "register opcode " + uring.RegisterOpName(op), MinimumVersion: since, Kernel: "5.10.0-46-amd64", Err: unix.EINVAL}
		}
		return nil
	}
	supports = func(c uring.Capability) error {
		if caps[c] {
			return &uring.UnsupportedError{Feature: "capability " + c.CName(), MinimumVersion: c.Since(), Kernel: "6.1.0-31-amd64", Err: unix.EINVAL}
		}
		return nil
	}
}

// A probe that cannot run leaves the EINVAL to the release table: an
// opcode newer than the kernel is still named with its release.
func TestWrapProbeFailed(t *testing.T) {
	oldOp := supportsRegisterOp
	t.Cleanup(func() { supportsRegisterOp = oldOp })
	supportsRegisterOp = func(sys.RegisterOp) error { return unix.EMFILE }
	err := wrap(sys.RegisterBPFFilter, einval) // Linux 7.0
	if ok, _ := uring.KernelAtLeast(sys.RegisterBPFFilter.Since()); ok {
		require.NotErrorIs(t, err, uring.ErrUnsupported)
		return
	}
	var ue *uring.UnsupportedError
	require.ErrorAs(t, err, &ue)
	require.Equal(t, "register opcode IORING_REGISTER_BPF_FILTER", ue.Feature)
	require.Equal(t, "7.0", ue.MinimumVersion)
	require.ErrorIs(t, err, unix.EINVAL)
	err = wrap(sys.RegisterFiles, einval) // 5.1: every kernel has it
	require.NotErrorIs(t, err, uring.ErrUnsupported)
}

var einval = os.NewSyscallError("io_uring_register", unix.EINVAL)

// requireLacks checks err is reg's *Error for op, unsupported, naming
// feature and release, and still the kernel's EINVAL.
func requireLacks(t *testing.T, err error, op sys.RegisterOp, feature, since string) {
	t.Helper()
	var re *Error
	require.ErrorAs(t, err, &re)
	require.Equal(t, op, re.Op)
	require.True(t, re.Unsupported)
	require.ErrorIs(t, err, uring.ErrUnsupported)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.ErrorIs(t, err, unix.EINVAL, "the kernel's answer stays visible")
	var ue *uring.UnsupportedError
	require.ErrorAs(t, err, &ue)
	require.Equal(t, feature, ue.Feature)
	require.Equal(t, since, ue.MinimumVersion)
	require.Same(t, einval, ue.Err, "the call's own answer, not the probe's")
	require.Contains(t, err.Error(), feature+" needs Linux "+since)
	require.NotContains(t, err.Error(), "bad flags")
}

// A buffer ring registered with a flag the kernel lacks (6.1 has neither
// IOU_PBUF_RING_MMAP, 6.4, nor IOU_PBUF_RING_INC, 6.12) is that flag's
// UnsupportedError, decided by the capability probes, not a guess.
func TestWrapBufRingFlags(t *testing.T) {
	fakeProbes(t, nil, map[uring.Capability]bool{uring.CapBufRingMmap: true, uring.CapBufRingInc: true})
	mmap := &sys.BufReg{RingEntries: 8, Flags: sys.PbufRingMmap}
	requireLacks(t, wrapArg(sys.RegisterPbufRing, mmap, einval), sys.RegisterPbufRing, "capability IOU_PBUF_RING_MMAP", "6.4")
	both := &sys.BufReg{RingEntries: 8, Flags: sys.PbufRingMmap | sys.PbufRingInc}
	requireLacks(t, wrapArg(sys.RegisterPbufRing, both, einval), sys.RegisterPbufRing, "capability IOU_PBUF_RING_INC", "6.12")
	// The same call through a registered ring.
	requireLacks(t, wrapArg(sys.RegisterPbufRing|sys.RegisterUseRegisteredRing, both, einval), sys.RegisterPbufRing, "capability IOU_PBUF_RING_INC", "6.12")

	// No flag the kernel lacks: the EINVAL is about the values, named from
	// the argument.
	plain := &sys.BufReg{RingEntries: 8, RingAddr: 4096*3 + 8}
	err := wrapArg(sys.RegisterPbufRing, plain, einval)
	require.NotErrorIs(t, err, uring.ErrUnsupported)
	require.ErrorIs(t, err, unix.EINVAL)
	require.ErrorContains(t, err, "the ring address 0x3008 is not page aligned")
}

// The opcode itself missing wins over its flags (5.10 has no
// REGISTER_PBUF_RING, 5.19).
func TestWrapOpcodeMissing(t *testing.T) {
	fakeProbes(t, map[sys.RegisterOp]string{sys.RegisterPbufRing: "5.19"}, map[uring.Capability]bool{uring.CapBufRingInc: true})
	br := &sys.BufReg{RingEntries: 8, Flags: sys.PbufRingInc}
	requireLacks(t, wrapArg(sys.RegisterPbufRing, br, einval), sys.RegisterPbufRing, "register opcode IORING_REGISTER_PBUF_RING", "5.19")
	requireLacks(t, wrap(sys.RegisterPbufRing, einval), sys.RegisterPbufRing, "register opcode IORING_REGISTER_PBUF_RING", "5.19")
}

func TestWrapSparseAndNAPI(t *testing.T) {
	fakeProbes(t, nil, map[uring.Capability]bool{uring.CapSparseFiles: true, uring.CapSparseBuffers: true, uring.CapNAPIStaticTracking: true})
	sparse := &sys.RsrcRegister{Nr: 4, Flags: sys.RsrcRegisterSparse}
	requireLacks(t, wrapArg(sys.RegisterFiles2, sparse, einval), sys.RegisterFiles2, "capability IORING_RSRC_REGISTER_SPARSE", "5.19")
	requireLacks(t, wrapArg(sys.RegisterBuffers2, sparse, einval), sys.RegisterBuffers2, "capability IORING_RSRC_REGISTER_SPARSE", "5.19")
	err := wrapArg(sys.RegisterFiles2, &sys.RsrcRegister{Nr: 4}, einval)
	require.NotErrorIs(t, err, uring.ErrUnsupported, "no sparse flag: about the values")

	static := &sys.NAPI{Opcode: sys.NAPIRegisterOp, OpParam: sys.NAPITrackingStatic}
	requireLacks(t, wrapArg(sys.RegisterNAPI, static, einval), sys.RegisterNAPI, "capability IO_URING_NAPI_TRACKING_STATIC", "6.13")
	err = wrapArg(sys.RegisterNAPI, &sys.NAPI{BusyPollTo: 10}, einval)
	require.NotErrorIs(t, err, uring.ErrUnsupported, "dynamic tracking is 6.9's REGISTER_NAPI")
}

// Only EINVAL is put to the probes; other errnos keep their hints.
func TestWrapOtherErrnos(t *testing.T) {
	fakeProbes(t, nil, map[uring.Capability]bool{uring.CapBufRingMmap: true})
	err := wrapArg(sys.RegisterPbufRing, &sys.BufReg{RingEntries: 8, Flags: sys.PbufRingMmap},
		os.NewSyscallError("io_uring_register", unix.EEXIST))
	require.NotErrorIs(t, err, uring.ErrUnsupported)
	require.ErrorContains(t, err, "group id is already registered")
}

func TestBufRegHint(t *testing.T) {
	page := uint64(os.Getpagesize())
	for _, c := range []struct {
		br   sys.BufReg
		want string
	}{
		{sys.BufReg{RingEntries: 100, RingAddr: page}, "ring_entries = 100 is not a power of two"},
		{sys.BufReg{RingEntries: 0, RingAddr: page}, "ring_entries = 0 is not a power of two"},
		{sys.BufReg{RingEntries: 1 << 16, RingAddr: page}, "ring_entries = 65536 is above 32768"},
		{sys.BufReg{RingEntries: 8, Flags: 0x40}, "unknown flags 0x40"},
		{sys.BufReg{RingEntries: 8, Flags: sys.PbufRingMmap, RingAddr: page}, "IOU_PBUF_RING_MMAP takes no ring address"},
		{sys.BufReg{RingEntries: 8, RingAddr: page + 16}, "is not page aligned"},
		{sys.BufReg{RingEntries: 8, RingAddr: page}, ""},
		{sys.BufReg{RingEntries: 8, Flags: sys.PbufRingMmap}, ""},
	} {
		require.Contains(t, bufRegHint(&c.br), c.want, "%+v", c.br)
		if c.want == "" {
			require.Empty(t, bufRegHint(&c.br), "%+v", c.br)
		}
	}
	// What the kernel itself says about a ring address it cannot use.
	br := &sys.BufReg{RingEntries: 8, RingAddr: 8}
	require.Contains(t, hintArg(sys.RegisterPbufRing, unix.EINVAL, br), "not page aligned")
	require.Contains(t, hintArg(sys.RegisterPbufRing, unix.EINVAL, nil), "entries not a power of two")
}
