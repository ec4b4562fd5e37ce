//go:build !linux

package sys

import (
	"os"
	"syscall"
)

func Tgkill(tid int, sig syscall.Signal) error { return os.NewSyscallError("tgkill", errNoSys) }

// SigPreempt is 0 where there is no SIGURG: Tgkill fails there anyway.
const SigPreempt = syscall.Signal(0)
