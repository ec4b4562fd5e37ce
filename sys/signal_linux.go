//go:build linux

package sys

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// SigPreempt is SIGURG, the signal the Go runtime sends itself to preempt
// goroutines and otherwise ignores: sent to a thread blocked in a system
// call, it makes the call return EINTR and nothing else.
const SigPreempt = unix.SIGURG

// Tgkill sends sig to the thread tid of this process (tgkill(2)). The
// ring's Close uses it to interrupt a thread blocked in io_uring_enter.
func Tgkill(tid int, sig syscall.Signal) error {
	if err := unix.Tgkill(unix.Getpid(), tid, sig); err != nil {
		return os.NewSyscallError("tgkill", err)
	}
	return nil
}
