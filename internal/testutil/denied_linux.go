//go:build linux

package testutil

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/internal/testutil/seccomp"
	"golang.org/x/sys/unix"
)

// deniedEnv names where a rerun of a test binary runs: "seccomp" (a
// filter denies the io_uring syscalls with EPERM, as Docker's default
// profile does) or "sysctl" (the parent set kernel.io_uring_disabled = 2).
const deniedEnv = "URING_TEST_DENIED"

const disabledKnob = "/proc/sys/kernel/io_uring_disabled"

// MainDenied is TestMain for packages that must work where io_uring is
// denied (the examples, on the task layer's fallback): it runs the suite,
// then again in a child under a seccomp filter that denies io_uring, and,
// when URING_SYSCTL_TESTS=1 and the sysctl exists and can be written,
// again with kernel.io_uring_disabled = 2 (global: CI runs that step on
// its own), restoring it after. Each child first checks that io_uring is
// indeed unavailable to it.
func MainDenied(m *testing.M) { MainDeniedSetup(m, nil) }

// MainDeniedSetup is MainDenied with setup run first in each process,
// after io_uring is denied there and before the leak check's first look:
// it starts what lives as long as the process (a package's own rings).
func MainDeniedSetup(m *testing.M, setup func()) {
	where := os.Getenv(deniedEnv)
	if where == "seccomp" {
		if err := seccomp.DenyIOUring(unix.EPERM); err != nil {
			fmt.Fprintln(os.Stderr, "denied rerun:", err)
			os.Exit(3)
		}
	}
	if setup != nil {
		setup()
	}
	switch where {
	case "seccomp", "sysctl":
		if err := feature.Available(); !errors.Is(err, feature.ErrUnsupported) {
			fmt.Fprintf(os.Stderr, "denied rerun (%s): io_uring is still available (%v)\n", where, err)
			os.Exit(3)
		}
		Main(m)
		return
	}
	code := RunMain(m)
	if code == 0 {
		code = RerunWithEnv(deniedEnv + "=seccomp")
	}
	if code == 0 && os.Getenv("URING_SYSCTL_TESTS") == "1" {
		code = rerunSysctlDisabled()
	}
	os.Exit(code)
}

// rerunSysctlDisabled reruns the binary with kernel.io_uring_disabled = 2
// where the sysctl exists (6.6) and this process may write it.
func rerunSysctlDisabled() int {
	old, err := os.ReadFile(disabledKnob)
	if err != nil {
		fmt.Fprintf(os.Stderr, "=== no sysctl rerun: %v\n", err)
		return 0
	}
	if err := os.WriteFile(disabledKnob, []byte("2"), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "=== no sysctl rerun: %v\n", err)
		return 0
	}
	defer func() {
		if err := os.WriteFile(disabledKnob, old, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "restoring %s: %v\n", disabledKnob, err)
		}
	}()
	return RerunWithEnv(deniedEnv + "=sysctl")
}
