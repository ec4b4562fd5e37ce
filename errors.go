package uring

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

var (
	// ErrUnsupported: io_uring, or the feature asked for, is not available
	// here. errors.Is(err, errors.ErrUnsupported) also holds.
	ErrUnsupported = fmt.Errorf("io_uring: %w", errors.ErrUnsupported)
	// ErrClosed: the ring was closed.
	ErrClosed = errors.New("io_uring: ring closed")
	// ErrSQFull: every SQE is handed out; submit (or reap) first.
	ErrSQFull = errors.New("io_uring: submission queue full")
	// ErrTimeout: a wait ended before enough completions arrived.
	ErrTimeout = errors.New("io_uring: timed out")
)

// unavailable explains EPERM/ENOSYS from io_uring_setup(2).
func unavailable(err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) || (errno != syscall.EPERM && errno != syscall.ENOSYS) {
		return err
	}
	v, rerr := os.ReadFile("/proc/sys/kernel/io_uring_disabled")
	setting := strings.TrimSpace(string(v))
	switch {
	case rerr == nil && setting == "2":
		return fmt.Errorf("%w: kernel.io_uring_disabled = 2 disables io_uring for every process (%w)", ErrUnsupported, err)
	case rerr == nil && setting == "1" && errno == syscall.EPERM:
		return fmt.Errorf("%w: kernel.io_uring_disabled = 1 allows io_uring only to CAP_SYS_ADMIN or the group in kernel.io_uring_group (%w)", ErrUnsupported, err)
	case errno == syscall.ENOSYS && os.IsNotExist(rerr):
		return fmt.Errorf("%w: the kernel has no io_uring (built without CONFIG_IO_URING, or older than 5.1) or a seccomp filter returns ENOSYS (%w)", ErrUnsupported, err)
	default:
		return fmt.Errorf("%w: kernel.io_uring_disabled = %s, so a seccomp filter (container runtime or sandbox) likely denies io_uring_setup (%w)", ErrUnsupported, orUnknown(setting), err)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// OptionError names the option (or combination) New rejected.
type OptionError struct {
	Option string // e.g. "WithDeferTaskrun"
	Reason string
}

func (e *OptionError) Error() string { return "uring: " + e.Option + ": " + e.Reason }

// Is lets errors.Is(err, syscall.EINVAL) hold for option errors, as it
// would for the kernel's answer.
func (e *OptionError) Is(target error) bool { return target == syscall.EINVAL }
