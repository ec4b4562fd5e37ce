//go:build linux

package feature

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// disabledSysctl is the sysctl's file (a variable for tests).
var disabledSysctl = "/proc/sys/kernel/io_uring_disabled"

var (
	availableMu sync.Mutex
	available   bool // io_uring has worked once; only "yes" is cached
)

// Available reports whether this process can use io_uring at all: nil when
// a ring can be made, an *UnsupportedError that names
// kernel.io_uring_disabled (with its value) or seccomp when io_uring_setup
// answers EPERM or ENOSYS (see Explain), and any other error (ENOMEM,
// EMFILE) as is.
// Only the "yes" is cached: the sysctl may change.
func Available() error {
	availableMu.Lock()
	defer availableMu.Unlock()
	if available {
		return nil
	}
	var p sys.Params
	fd, err := sys.Setup(1, &p)
	if err != nil {
		return Explain(err)
	}
	sys.Close(fd)
	available = true
	return nil
}

// Explain turns EPERM or ENOSYS from io_uring_setup(2) into an
// *UnsupportedError for "io_uring" (no MinimumVersion, Err the errno) whose
// Reason says why: the value of kernel.io_uring_disabled, a seccomp filter,
// or a kernel without io_uring. Other errors are returned unchanged.
func Explain(err error) error {
	var errno unix.Errno
	if !errors.As(err, &errno) || (errno != unix.EPERM && errno != unix.ENOSYS) {
		return err
	}
	v, rerr := IOUringDisabled()
	var reason string
	switch {
	case rerr == nil && v == 2:
		reason = "kernel.io_uring_disabled = 2 disables io_uring for every process"
	case rerr == nil && v == 1 && errno == unix.EPERM:
		reason = "kernel.io_uring_disabled = 1 allows io_uring only to CAP_SYS_ADMIN or the group in kernel.io_uring_group"
	case errno == unix.ENOSYS && errors.Is(rerr, os.ErrNotExist):
		reason = "the kernel has no io_uring (built without CONFIG_IO_URING, or older than 5.1), or a seccomp filter answers ENOSYS"
	case rerr != nil:
		reason = fmt.Sprintf("kernel.io_uring_disabled cannot be read (%v), so a seccomp filter (container runtime or sandbox) likely denies io_uring_setup", rerr)
	default:
		reason = fmt.Sprintf("kernel.io_uring_disabled = %d, so a seccomp filter (container runtime or sandbox) likely denies io_uring_setup", v)
	}
	// Not a question of versions: io_uring is there (5.1) but this process
	// may not use it.
	return unsupported("io_uring", "", reason, err)
}

// IOUringDisabled reads kernel.io_uring_disabled: 0 io_uring is enabled,
// 1 only for CAP_SYS_ADMIN or kernel.io_uring_group, 2 disabled. Kernels
// before 6.6 have no such sysctl: the error then wraps os.ErrNotExist and
// nothing is disabled by it.
func IOUringDisabled() (int, error) {
	b, err := os.ReadFile(disabledSysctl)
	if err != nil {
		return -1, fmt.Errorf("feature: kernel.io_uring_disabled: %w", err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1, fmt.Errorf("feature: kernel.io_uring_disabled = %q: %w", strings.TrimSpace(string(b)), err)
	}
	return v, nil
}

var releaseOnce = sync.OnceValue(func() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
})

// KernelRelease returns the running kernel's release (uname -r), or "" when
// uname fails.
func KernelRelease() string { return releaseOnce() }
