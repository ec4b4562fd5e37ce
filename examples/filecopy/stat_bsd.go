//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

// sizeAndMode stats fd (fstat on a goroutine: there is no io_uring here).
func sizeAndMode(t *task.T, fd int) (int64, uint32, error) {
	st, err := task.Blocking(t, func() (unix.Stat_t, error) {
		var st unix.Stat_t
		err := unix.Fstat(fd, &st)
		return st, err
	})
	if err != nil {
		return 0, 0, err
	}
	return st.Size, uint32(st.Mode & 0o777), nil
}
