//go:build linux

package tests

import (
	"errors"
	"fmt"
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/internal/testutil/seccomp"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

const seccompChildEnv = "URING_TEST_SECCOMP_CHILD"

// seccompChild runs in a re-executed test binary: it denies the io_uring
// syscalls with the errno named by mode, then reports what uring.New says.
func seccompChild(mode string) int {
	errno := map[string]unix.Errno{"EPERM": unix.EPERM, "ENOSYS": unix.ENOSYS}[mode]
	if err := seccomp.DenyIOUring(errno); err != nil {
		fmt.Println("filter:", err)
		return 3
	}
	r, err := uring.New(4)
	if err == nil {
		r.Close()
		fmt.Println("uring.New succeeded under the filter")
		return 4
	}
	fmt.Println(err)
	if !errors.Is(err, uring.ErrUnsupported) || !errors.Is(err, errors.ErrUnsupported) || !errors.Is(err, errno) {
		return 5
	}
	return 0
}

// TestSeccompDenialIsErrUnsupported: a sandbox denying io_uring (EPERM or
// ENOSYS) gives ErrUnsupported naming seccomp, not a raw errno.
func TestSeccompDenialIsErrUnsupported(t *testing.T) {
	for _, mode := range []string{"EPERM", "ENOSYS"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), seccompChildEnv+"="+mode)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "child: %s", out)
			require.Contains(t, string(out), "seccomp")
			require.Contains(t, string(out), "io_uring_setup")
		})
	}
}

// TestIOURingDisabledSysctl sets kernel.io_uring_disabled to 2 and back.
// The sysctl is global, so it would fail every other test package running
// at that moment: it runs only when URING_SYSCTL_TESTS=1 (.ci/run runs it on
// its own after the suite).
func TestIOURingDisabledSysctl(t *testing.T) {
	if os.Getenv("URING_SYSCTL_TESTS") != "1" {
		t.Skip("changes the global kernel.io_uring_disabled; set URING_SYSCTL_TESTS=1 to run it alone")
	}
	const knob = "/proc/sys/kernel/io_uring_disabled"
	old, err := os.ReadFile(knob)
	if os.IsNotExist(err) {
		// The sysctl's probe: Require fails the test from 6.6 on.
		testutil.Require(t, &uring.UnsupportedError{Feature: "sysctl kernel.io_uring_disabled",
			MinimumVersion: "6.6", Kernel: uring.KernelRelease(), Err: err})
	}
	require.NoError(t, err)
	if os.Geteuid() != 0 {
		t.Skip("writing kernel.io_uring_disabled needs root")
	}
	t.Cleanup(func() { require.NoError(t, os.WriteFile(knob, old, 0o644)) })
	require.NoError(t, os.WriteFile(knob, []byte("2"), 0o644))
	r, err := uring.New(4)
	require.NoError(t, os.WriteFile(knob, old, 0o644)) // restore at once
	require.Nil(t, r)
	require.ErrorIs(t, err, uring.ErrUnsupported)
	require.ErrorIs(t, err, unix.EPERM)
	require.Contains(t, err.Error(), "kernel.io_uring_disabled = 2")

	r, err = uring.New(4) // and it works again once restored
	require.NoError(t, err)
	require.NoError(t, r.Close())
}

// TestExecChildInheritsNoRingFdNorOpFds: the ring fd and fds made by open
// ops (5.6) and, where the kernel has them, socket ops (5.19) are
// close-on-exec.
func TestExecChildInheritsNoRingFdNorOpFds(t *testing.T) {
	path, err := sqe.Path(os.Args[0])
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		needs error
		prep  func(s *sys.SQE) error
	}{
		{"openat", uring.CheckOp(sys.OpOpenat), func(s *sys.SQE) error { return sqe.Openat(s, unix.AT_FDCWD, path, unix.O_RDONLY, 0) }},
		{"socket", uring.CheckOp(sys.OpSocket), func(s *sys.SQE) error { return sqe.Socket(s, unix.AF_INET, unix.SOCK_STREAM, 0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			testutil.Require(t, c.needs)
			r := ringtest.New(t, 8)
			s, err := r.GetSQE()
			require.NoError(t, err)
			require.NoError(t, c.prep(s))
			_, err = r.SubmitAndWait(1)
			require.NoError(t, err)
			cq, err := r.WaitCQE()
			require.NoError(t, err)
			fd, err := cqe.Result(cq)
			r.CQESeen(cq)
			require.NoError(t, err)
			defer unix.Close(fd)
			out, err := exec.Command("/bin/sh", "-c", "ls /proc/self/fd").Output()
			require.NoError(t, err)
			inherited := map[int]bool{}
			for _, f := range strings.Fields(string(out)) {
				n, _ := strconv.Atoi(f)
				inherited[n] = true
			}
			for _, fd := range []int{r.Fd(), fd} {
				require.False(t, inherited[fd], "fd %d leaked into the exec'd child (%s)", fd, out)
			}
		})
	}
}
