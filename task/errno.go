package task

import (
	"context"
	"syscall"
	"time"
)

// The kernel-internal errnos of include/linux/errno.h (ERESTARTSYS,
// ERESTARTNOINTR, ERESTARTNOHAND, ENOIOCTLCMD, ERESTART_RESTARTBLOCK).
const (
	errRestartSys   syscall.Errno = 512
	errRestartBlock syscall.Errno = 516
)

// opErr turns a negative result (a CQE's) into an error; a cancellation
// becomes the context's error (or ErrClosed).
func (t *T) opErr(name string, fd int, res int32, linked bool) error {
	errno := syscall.Errno(-res)
	if errno >= errRestartSys && errno <= errRestartBlock {
		// Kernel-internal restart codes leak out of an io-wq worker that was
		// interrupted (a cancelled open of a FIFO completes with -512): to
		// user space they mean "interrupted".
		errno = syscall.EINTR
	}
	if errno == syscall.ECANCELED || errno == syscall.EINTR {
		switch {
		case t.ex.closing:
			return opError(name, fd, ErrClosed)
		case t.ctx.Err() != nil:
			return opError(name, fd, t.ctx.Err())
		case linked && time.Now().UnixNano() >= t.deadline:
			return opError(name, fd, context.DeadlineExceeded)
		}
	}
	return opError(name, fd, errno)
}
