//go:build linux

package seccomp

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
)

// auditArch is this architecture's AUDIT_ARCH_* value.
func auditArch() (uint32, error) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, nil
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, nil
	case "riscv64":
		return unix.AUDIT_ARCH_RISCV64, nil
	}
	return 0, fmt.Errorf("seccomp: no AUDIT_ARCH for %s", runtime.GOARCH)
}

// Filter returns a program that makes io_uring_setup, io_uring_enter and
// io_uring_register fail with errno and allows everything else.
func Filter(errno unix.Errno) ([]unix.SockFilter, error) {
	arch, err := auditArch()
	if err != nil {
		return nil, err
	}
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: jt, Jf: jf, K: k}
	}
	return []unix.SockFilter{
		stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch),
		jeq(arch, 1, 0), // another ABI: allow
		stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW),
		stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr),
		jeq(unix.SYS_IO_URING_SETUP, 3, 0),
		jeq(unix.SYS_IO_URING_ENTER, 2, 0),
		jeq(unix.SYS_IO_URING_REGISTER, 1, 0),
		stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW),
		stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(errno)),
	}, nil
}

// DenyIOUring installs Filter(errno) on every thread of the process
// (SECCOMP_FILTER_FLAG_TSYNC), after setting no_new_privs. It cannot be
// undone: call it in a child process.
func DenyIOUring(errno unix.Errno) error {
	prog, err := Filter(errno)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("seccomp: PR_SET_NO_NEW_PRIVS: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("seccomp: SECCOMP_SET_MODE_FILTER: %w", e)
	}
	return nil
}
