//go:build linux

package eventfd

import (
	"os"

	"golang.org/x/sys/unix"
)

// New returns a non-blocking, close-on-exec eventfd as a pollable *os.File
// (os.NewFile registers a non-blocking fd with the netpoller, so Read parks
// the goroutine and releases its P) and its descriptor, for
// IORING_REGISTER_EVENTFD. Never call the file's Fd method: it would make
// the descriptor blocking.
func New(name string) (*os.File, int, error) {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, -1, os.NewSyscallError("eventfd2", err)
	}
	return os.NewFile(uintptr(fd), name), fd, nil
}
