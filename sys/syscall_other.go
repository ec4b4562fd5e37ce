//go:build !linux

package sys

import (
	"os"
	"syscall"
)

// On systems other than Linux there is no io_uring: every call fails with
// ENOSYS wrapped in *os.SyscallError, and Supported is false.

var errNoSys = syscall.ENOSYS

// Supported reports whether this build can reach io_uring at all.
const Supported = false

func Setup(entries uint32, p *Params) (int, error) {
	return -1, os.NewSyscallError("io_uring_setup", errNoSys)
}

func Enter(fd int, toSubmit, minComplete uint32, flags EnterFlags) (int, error) {
	return 0, os.NewSyscallError("io_uring_enter", errNoSys)
}

func EnterSubmit(fd int, toSubmit uint32, flags EnterFlags) (int, error) {
	return 0, os.NewSyscallError("io_uring_enter", errNoSys)
}

func EnterArg(fd int, toSubmit, minComplete uint32, flags EnterFlags, arg *GeteventsArg) (int, error) {
	return 0, os.NewSyscallError("io_uring_enter", errNoSys)
}

func EnterRegWait(fd int, toSubmit, minComplete uint32, flags EnterFlags, off uint32) (int, error) {
	return 0, os.NewSyscallError("io_uring_enter", errNoSys)
}

func Register[T any](fd int, op RegisterOp, arg *T, nrArgs uint32) (int, error) {
	return 0, os.NewSyscallError("io_uring_register", errNoSys)
}

func RegisterSlice[T any](fd int, op RegisterOp, s []T) (int, error) {
	return 0, os.NewSyscallError("io_uring_register", errNoSys)
}

func Mmap(fd int, off int64, length int) ([]byte, error) {
	return nil, os.NewSyscallError("mmap", errNoSys)
}

func MmapAnon(length int, huge bool) ([]byte, error) {
	return nil, os.NewSyscallError("mmap", errNoSys)
}

func Munmap(b []byte) error { return nil }

func Close(fd int) error { return os.NewSyscallError("close", errNoSys) }

func MmapFixedAnon(b []byte) error { return nil }

func SendMsgRing(fd int, msg *SQE) error {
	return os.NewSyscallError("io_uring_register", errNoSys)
}
