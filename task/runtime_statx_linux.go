//go:build linux

package task

import (
	"context"

	"golang.org/x/sys/unix"
)

// Statx stats path.
func (rt *Runtime) Statx(ctx context.Context, path string, st *unix.Statx_t) error {
	_, err := call(ctx, rt.Pick(), func(t *T) (struct{}, error) {
		return struct{}{}, t.Statx(unix.AT_FDCWD, path, 0, unix.STATX_BASIC_STATS, st)
	})
	return err
}
