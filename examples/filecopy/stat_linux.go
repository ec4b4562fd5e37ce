package main

import (
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

// sizeAndMode stats fd through io_uring (STATX).
func sizeAndMode(t *task.T, fd int) (int64, uint32, error) {
	var st unix.Statx_t
	if err := t.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_SIZE|unix.STATX_MODE, &st); err != nil {
		return 0, 0, err
	}
	return int64(st.Size), uint32(st.Mode & 0o777), nil
}
