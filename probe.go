package uring

import (
	"errors"
	"fmt"

	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sys"
)

// The feature probes that submit requests run on a Ring: package feature
// sits below this one, so it gets the constructor here.
func init() {
	feature.SetRingMaker(func(entries uint32, flags sys.SetupFlags) (feature.Ring, error) {
		r, err := New(entries, WithFlags(flags))
		if err != nil {
			return nil, err
		}
		return r, nil
	})
}

// UnsupportedError is the one error for a feature the kernel (or this
// process) lacks. Its fields:
//
//	Feature        string // what, in the kernel's terms: "opcode IORING_OP_MSG_RING",
//	                      // "setup flag IORING_SETUP_DEFER_TASKRUN", "buffer ring flag
//	                      // IOU_PBUF_RING_INC", "io_uring" itself when it is disabled
//	MinimumVersion string // the Linux release that added it ("5.18"); "" when not a
//	                      // question of versions (disabled, built out, not permitted)
//	Kernel         string // the running release (uname -r)
//	Reason         string // a human explanation, may be empty
//	Err            error  // the kernel's answer (an errno), when there was one
//
// Error reads like "uring: opcode IORING_OP_MSG_RING needs Linux 5.18;
// this kernel is 5.10.0-46-amd64 (invalid argument)". errors.Is(err,
// ErrUnsupported) and errors.Is(err, errors.ErrUnsupported) hold, and
// Unwrap returns Err, so errors.Is(err, syscall.EINVAL) holds where the
// kernel said EINVAL. KernelHasIt reports whether the running kernel is
// at or past MinimumVersion (the answer then points at a kernel built
// without the feature, or at a wrong probe).
type UnsupportedError = feature.UnsupportedError

// CheckCapability reports whether the kernel has capability c (see
// Capability).
//
// Every Check* function (CheckOp, CheckSetupFlag, CheckFeature,
// CheckRegisterOp, CheckEnterFlag, CheckCapability, CheckAvailable)
// answers with the same contract:
//   - nil: supported (or, for CheckAvailable, io_uring is usable here);
//   - an *UnsupportedError (errors.Is(err, ErrUnsupported) and
//     errors.Is(err, errors.ErrUnsupported) hold): the kernel, or this
//     process, cannot use it. Its MinimumVersion says which release added
//     it, or is empty when no release would help (io_uring disabled by
//     kernel.io_uring_disabled or seccomp, a feature built out of the
//     kernel, one this package does not know);
//   - any other error: the probe itself failed (out of memory or fds, for
//     instance); ask again later.
//
// Yes and no answers are cached for the life of the process, failures are
// not, and neither is "io_uring unavailable" (the sysctl may change). The
// probes are safe for concurrent use; each makes a small ring of its own
// (opcodes: IORING_REGISTER_PROBE; setup flags, register opcodes, enter
// flags and capabilities: try and see), leaves no fd or mapping behind, and
// runs on a locked OS thread. On systems other than Linux every answer is
// an *UnsupportedError for "io_uring".
func CheckCapability(c Capability) error { return feature.Cap(feature.Capability(c)) }

// CheckOp reports whether the kernel supports opcode op, from
// IORING_REGISTER_PROBE (5.6; before it, from the release that added op).
// An opcode the kernel knows but was built without (CONFIG_NET, ...) is
// unsupported with an empty MinimumVersion.
func CheckOp(op sys.Op) error { return feature.Op(op) }

// CheckSetupFlag reports whether io_uring_setup(2) accepts every flag
// in f, each tried on a two-entry ring with what it requires (SQ_AFF with
// SQPOLL, DEFER_TASKRUN with SINGLE_ISSUER, ...). The answer names the
// lowest flag the kernel rejects. f must not be 0.
func CheckSetupFlag(f sys.SetupFlags) error {
	if f == 0 {
		return fmt.Errorf("uring: CheckSetupFlag(0): no flag")
	}
	for bit := sys.SetupFlags(1); bit != 0; bit <<= 1 {
		if f&bit != 0 {
			if err := feature.SetupFlag(bit); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckFeature reports whether the kernel reports every IORING_FEAT_*
// bit of f in io_uring_params.features; the answer names the lowest
// missing bit. f must not be 0.
func CheckFeature(f sys.Features) error { return feature.Feature(f) }

// CheckRegisterOp reports whether io_uring_register(2) supports op,
// tried with valid, harmless arguments on a ring made for the purpose;
// with sys.RegisterUseRegisteredRing set (6.3), both the flag and the
// opcode must be supported.
func CheckRegisterOp(op sys.RegisterOp) error { return feature.RegisterOp(op) }

// CheckEnterFlag reports whether io_uring_enter(2) accepts every flag
// in f, each tried on a ring with nothing to submit or wait for. The
// answer names the lowest flag the kernel rejects. f must not be 0.
func CheckEnterFlag(f sys.EnterFlags) error {
	if f == 0 {
		return fmt.Errorf("uring: CheckEnterFlag(0): no flag")
	}
	for bit := sys.EnterFlags(1); bit != 0; bit <<= 1 {
		if f&bit != 0 {
			if err := feature.EnterFlag(bit); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckAvailable reports whether this process can use io_uring at all: nil
// when a ring can be made; an *UnsupportedError for "io_uring" (no
// MinimumVersion) whose Reason names kernel.io_uring_disabled with its
// value, or a seccomp filter (Docker's and containerd's default profiles
// deny io_uring), when io_uring_setup(2) answers EPERM or ENOSYS; any other
// error (ENOMEM, EMFILE) as is. Only the "yes" is cached.
func CheckAvailable() error { return feature.Available() }

// IOUringDisabled reads the sysctl kernel.io_uring_disabled (6.6): 0
// io_uring is enabled, 1 only for CAP_SYS_ADMIN or the group in
// kernel.io_uring_group, 2 disabled. On kernels without the sysctl the
// error wraps os.ErrNotExist (and nothing is disabled by it).
func IOUringDisabled() (int, error) { return feature.IOUringDisabled() }

// KernelRelease returns the running kernel's release (uname -r), or ""
// when it cannot be read (and off Linux).
func KernelRelease() string { return feature.KernelRelease() }

// KernelAtLeast reports whether the running kernel's release is release
// ("6.7") or newer, comparing the leading dotted numbers ("6.18.3-arch1"
// is newer than "6.9"). The error says when either release does not start
// with a version.
func KernelAtLeast(release string) (bool, error) { return feature.KernelAtLeast(release) }

// Limits are the largest rings the kernel makes.
//
//	MaxSQEntries uint32 // IORING_MAX_ENTRIES (32768 since 5.4)
//	MaxCQEntries uint32 // IORING_MAX_CQ_ENTRIES (twice that)
type Limits = feature.Limits

// KernelLimits finds the largest SQ and CQ the running kernel makes: with
// IORING_SETUP_CLAMP (5.6) by asking for more than any kernel allows and
// reading back what it got, before that by halving from 32768. (The
// constants MaxEntries and MaxCQEntries are what every kernel since 5.4
// answers.)
func KernelLimits() (Limits, error) { return feature.MaxEntries() }

// BlockDevice says whether a block device can complete polled I/O, which
// an IORING_SETUP_IOPOLL ring needs for its O_DIRECT reads and writes.
//
//	Name   string // "nvme0n1"
//	Polled bool   // queue/io_poll is 1
//	Reason string // why (not): "no poll queues (nvme.poll_queues=0)"
type BlockDevice = feature.BlockDevice

// PolledBlockDevices lists the block devices in /sys/block, sorted by
// name, and whether each can complete polled I/O (queue/io_poll), with the
// driver's poll_queues parameter where it has one.
func PolledBlockDevices() ([]BlockDevice, error) { return feature.PolledIO() }

// The kernel's names, as the headers and man pages spell them.

// OpName returns an opcode's C name ("IORING_OP_READ"), or its number
// when this package does not know it.
func OpName(op sys.Op) string { return feature.OpName(op) }

// SetupFlagName returns the C names of the flags in f
// ("IORING_SETUP_SQPOLL|IORING_SETUP_SQ_AFF"), unknown bits in hex.
func SetupFlagName(f sys.SetupFlags) string { return feature.SetupFlagName(f) }

// FeatureName returns the C names of the bits in f
// ("IORING_FEAT_NODROP"), unknown bits in hex.
func FeatureName(f sys.Features) string { return feature.FeatureName(f) }

// RegisterOpName returns a register opcode's C name
// ("IORING_REGISTER_PBUF_RING", "IORING_UNREGISTER_FILES"), or its number
// when this package does not know it.
func RegisterOpName(op sys.RegisterOp) string { return feature.RegisterOpName(op) }

// EnterFlagName returns the C names of the flags in f
// ("IORING_ENTER_GETEVENTS"), unknown bits in hex.
func EnterFlagName(f sys.EnterFlags) string { return feature.EnterFlagName(f) }

// FeatureSince returns the Linux release that added a feature bit
// ("5.11"), or "". (sys.Op, sys.SetupFlags and sys.RegisterOp have a
// Since method of their own.)
func FeatureSince(f sys.Features) string { return feature.FeatureSince(f) }

// EnterFlagSince returns the Linux release that added an enter flag, or "".
func EnterFlagSince(f sys.EnterFlags) string { return feature.EnterFlagSince(f) }

// ProbeItem is one answer of Probe: an opcode, a flag, a feature bit or a
// capability.
type ProbeItem struct {
	Value     uint64 // the opcode, flag bit, feature bit or Capability
	Name      string // short name: "READ", "SQPOLL", "multishot accept"
	CName     string // the kernel's name: "IORING_OP_READ", "IORING_SETUP_SQPOLL", "IORING_ACCEPT_MULTISHOT"
	Since     string // the Linux release that added it; "" when unknown
	Supported bool   // the kernel has it
	// Err is nil when Supported; an *UnsupportedError when the kernel
	// lacks it; any other error when the probe failed (Supported is then
	// unknown, and false).
	Err error
}

// Failed reports whether the item's probe failed, as opposed to answering
// yes or no.
func (it ProbeItem) Failed() bool { return it.Err != nil && !errors.Is(it.Err, ErrUnsupported) }

// ProbeReport is everything the probes know about the running kernel, in
// the order `uringctl probe` prints it. Every list is complete (every
// value this package knows) and ordered by value.
type ProbeReport struct {
	Kernel string // uname -r
	// Unavailable is nil when this process can use io_uring; otherwise
	// CheckAvailable's error (an *UnsupportedError naming
	// kernel.io_uring_disabled or seccomp, or the error met), and the
	// lists below are empty.
	Unavailable     error
	IOUringDisabled int           // kernel.io_uring_disabled; -1 when the kernel has no such sysctl (before 6.6) or it cannot be read
	Limits          *Limits       // nil when unavailable or the probe failed
	Opcodes         []ProbeItem   // IORING_OP_*, 0 to sys.OpLast-1
	SetupFlags      []ProbeItem   // IORING_SETUP_*, sys.SetupFlagList
	Features        []ProbeItem   // IORING_FEAT_*, sys.FeatureList
	RegisterOps     []ProbeItem   // IORING_(UN)REGISTER_*, 0 to sys.RegisterOpLast-1, then USE_REGISTERED_RING
	EnterFlags      []ProbeItem   // IORING_ENTER_*
	Capabilities    []ProbeItem   // every Capability
	BlockDevices    []BlockDevice // polled I/O per /sys/block device
	Errors          []error       // every probe that failed (items, limits, block devices)
}

// enterFlags lists the enter flags this package knows, lowest first.
var enterFlags = []sys.EnterFlags{
	sys.EnterGetEvents, sys.EnterSQWakeup, sys.EnterSQWait, sys.EnterExtArg,
	sys.EnterRegisteredRing, sys.EnterAbsTimer, sys.EnterExtArgReg, sys.EnterNoIOWait,
}

// Probe asks every probe and returns the report. The error is nil when
// every probe answered; the report's Unavailable when io_uring cannot be
// used here (errors.Is(err, ErrUnsupported) when it is disabled or
// denied); otherwise the probes that failed, joined (the report is
// complete but for them). The report is never nil.
func Probe() (*ProbeReport, error) {
	rep := &ProbeReport{Kernel: KernelRelease(), IOUringDisabled: -1}
	if v, err := IOUringDisabled(); err == nil {
		rep.IOUringDisabled = v
	}
	devs, derr := PolledBlockDevices()
	if derr == nil {
		rep.BlockDevices = devs
	}
	if err := CheckAvailable(); err != nil {
		rep.Unavailable = err
		return rep, err
	}
	if derr != nil {
		rep.Errors = append(rep.Errors, fmt.Errorf("polled I/O: %w", derr))
	}
	if l, err := KernelLimits(); err == nil {
		rep.Limits = &l
	} else {
		rep.Errors = append(rep.Errors, fmt.Errorf("limits: %w", err))
	}
	item := func(v uint64, name, cname, since string, err error) ProbeItem {
		it := ProbeItem{Value: v, Name: name, CName: cname, Since: since, Supported: err == nil, Err: err}
		if it.Failed() {
			rep.Errors = append(rep.Errors, fmt.Errorf("%s: %w", cname, err))
		}
		return it
	}
	for op := sys.Op(0); op < sys.OpLast; op++ {
		rep.Opcodes = append(rep.Opcodes, item(uint64(op), op.String(), OpName(op), op.Since(), CheckOp(op)))
	}
	for _, f := range sys.SetupFlagList {
		rep.SetupFlags = append(rep.SetupFlags, item(uint64(f), f.String(), SetupFlagName(f), f.Since(), CheckSetupFlag(f)))
	}
	for _, f := range sys.FeatureList {
		rep.Features = append(rep.Features, item(uint64(f), f.String(), FeatureName(f), FeatureSince(f), CheckFeature(f)))
	}
	for op := sys.RegisterOp(0); op < sys.RegisterOpLast; op++ {
		rep.RegisterOps = append(rep.RegisterOps, item(uint64(op), op.String(), RegisterOpName(op), op.Since(), CheckRegisterOp(op)))
	}
	u := sys.RegisterUseRegisteredRing
	rep.RegisterOps = append(rep.RegisterOps, item(uint64(u), "USE_REGISTERED_RING", RegisterOpName(u), u.Since(), CheckRegisterOp(u)))
	for _, f := range enterFlags {
		rep.EnterFlags = append(rep.EnterFlags, item(uint64(f), f.String(), EnterFlagName(f), EnterFlagSince(f), CheckEnterFlag(f)))
	}
	for _, c := range Capabilities() {
		rep.Capabilities = append(rep.Capabilities, item(uint64(c), c.String(), c.CName(), c.Since(), CheckCapability(c)))
	}
	return rep, errors.Join(rep.Errors...)
}
