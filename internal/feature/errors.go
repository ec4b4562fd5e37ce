package feature

import (
	"errors"
	"fmt"
)

// ErrUnsupported is matched by every "not supported here" answer (an
// *UnsupportedError); errors.Is(err, errors.ErrUnsupported) holds for it
// too.
var ErrUnsupported = fmt.Errorf("uring: %w", errors.ErrUnsupported)

// UnsupportedError is the one answer for "this kernel (or this process)
// cannot use that": it names the thing in the kernel's terms, the Linux
// release that added it and the running release, so that a reader knows
// whether a newer kernel would help. errors.Is(err, ErrUnsupported) and
// errors.Is(err, errors.ErrUnsupported) hold; Unwrap returns the kernel's
// answer, so errors.Is(err, unix.EINVAL) holds where the kernel said EINVAL.
// (cilium/ebpf's UnsupportedFeatureError carries MinimumVersion the same
// way.)
type UnsupportedError struct {
	// Feature names what is missing in the kernel's terms: "opcode
	// IORING_OP_MSG_RING", "setup flag IORING_SETUP_DEFER_TASKRUN",
	// "register opcode IORING_REGISTER_PBUF_RING", "buffer ring flag
	// IOU_PBUF_RING_INC", "multishot accept (IORING_ACCEPT_MULTISHOT)",
	// or "io_uring" itself.
	Feature string
	// MinimumVersion is the Linux release that added Feature ("5.18"). It
	// is empty when the answer is not one of versions: io_uring disabled by
	// kernel.io_uring_disabled or a seccomp filter, a feature compiled out
	// of (or not permitted on) a kernel that is new enough, or an opcode or
	// flag this package does not know.
	MinimumVersion string
	// Kernel is the running kernel's release (uname -r); "" off Linux.
	Kernel string
	// Reason explains the answer when Feature and MinimumVersion do not say
	// it all ("kernel.io_uring_disabled = 2 disables io_uring for every
	// process"); it may be empty.
	Reason string
	// Err is the kernel's answer (an errno, often in an *os.SyscallError)
	// when there was one, else nil.
	Err error
}

// Error reads like "uring: opcode IORING_OP_MSG_RING needs Linux 5.18;
// this kernel is 5.10.0-46-amd64 (invalid argument)" or, without a
// version, "uring: unavailable: kernel.io_uring_disabled = 2 disables
// io_uring for every process (io_uring_setup: operation not permitted)".
func (e *UnsupportedError) Error() string {
	s := "uring: "
	switch {
	case e.MinimumVersion != "":
		s += e.Feature + " needs Linux " + e.MinimumVersion
		if e.Kernel != "" {
			s += "; this kernel is " + e.Kernel
		}
		if e.Reason != "" {
			s += ": " + e.Reason
		}
	case e.Feature == "" || e.Feature == "io_uring":
		s += "unavailable"
		if e.Reason != "" {
			s += ": " + e.Reason
		}
	default:
		s += e.Feature + " unavailable"
		if e.Reason != "" {
			s += ": " + e.Reason
		} else if e.Kernel != "" {
			s += " on kernel " + e.Kernel
		}
	}
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	return s
}

// Unwrap returns the kernel's answer (nil when there was none).
func (e *UnsupportedError) Unwrap() error { return e.Err }

// Is reports whether target is ErrUnsupported or errors.ErrUnsupported.
func (e *UnsupportedError) Is(target error) bool {
	return target == ErrUnsupported || target == errors.ErrUnsupported
}

// KernelHasIt reports whether the running kernel is at or past
// MinimumVersion, that is whether the kernel should have Feature and the
// answer points at a wrong probe (or a kernel built without it) rather
// than an old kernel. It is false when MinimumVersion is empty or either
// release cannot be read.
func (e *UnsupportedError) KernelHasIt() bool {
	if e.MinimumVersion == "" || e.Kernel == "" {
		return false
	}
	c, err := compareRelease(e.Kernel, e.MinimumVersion)
	return err == nil && c >= 0
}

// Unsupported returns an *UnsupportedError for feature, added in release
// since ("" when not a question of versions), on the running kernel, with
// the kernel's answer err (may be nil) and an optional reason.
func Unsupported(feature, since, reason string, err error) *UnsupportedError {
	return &UnsupportedError{Feature: feature, MinimumVersion: since, Kernel: KernelRelease(), Reason: reason, Err: err}
}

// unsupported is Unsupported as an error.
func unsupported(feature, since, reason string, err error) error {
	return Unsupported(feature, since, reason, err)
}

// isUnsupported reports whether err matches ErrUnsupported.
func isUnsupported(err error) bool { return errors.Is(err, ErrUnsupported) }

// AsUnsupported returns the *UnsupportedError in err's chain, or nil.
func AsUnsupported(err error) *UnsupportedError {
	var ue *UnsupportedError
	if errors.As(err, &ue) {
		return ue
	}
	return nil
}
