//go:build !linux

package sys

import (
	"os"
	"syscall"
)

func Tgkill(tid int, sig syscall.Signal) error { return os.NewSyscallError("tgkill", errNoSys) }
