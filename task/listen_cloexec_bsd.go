//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package task

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// socketCloexec makes a close-on-exec socket; without SOCK_CLOEXEC
// everywhere, ForkLock keeps a fork from seeing it before FD_CLOEXEC is set,
// as Go's net does.
func socketCloexec(domain, typ, proto int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := unix.Socket(domain, typ, proto)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	return fd, err
}
