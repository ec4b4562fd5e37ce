package goio

import (
	"context"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

// Statx stats path (Linux).
func (e *Env) Statx(ctx context.Context, path string, st *unix.Statx_t) error {
	if e == nil {
		return nilReceiver("Env.Statx")
	}
	_, err := call(ctx, e.rt, e.rt.NextExecutor(), func(t *task.T) (struct{}, error) {
		return struct{}{}, t.Statx(unix.AT_FDCWD, path, 0, unix.STATX_BASIC_STATS, st)
	})
	return err
}
