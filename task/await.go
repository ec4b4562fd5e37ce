package task

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/pure-uring/uring/task/internal/iop"
)

// Every T method that does I/O fills the executor's one iop.Op (prep) and
// awaits it: the backend starts it (Start) and says how it stands. Done:
// the results are in the task's Waiter (a shortcut served it, or it
// failed before it began). Parked: the task parks until the backend wakes
// it, told Done, or Again ("the fd is ready now": the fallback's, whose
// non-blocking call would have blocked), when the task checks its context
// and the executor and has the backend try again (Retry). A cancellation
// meanwhile (the context's, Close's) reaches the backend through
// Executor.interrupt, and the wake still comes from the backend.

// prep starts the description of an operation of code on fd (the fd its
// errors name) in the executor's Op. The caller sets the arguments code
// reads (see package iop), then calls await.
func (ex *Executor) prep(code iop.Code, fd int) *iop.Op {
	op := &ex.op
	op.Code, op.Fd, op.Fixed = code, fd, false
	return op
}

// await runs the operation prep described for t and returns its result:
// the value (bytes, an fd, events) or the error, an *OpError named after
// the operation (an *ArgError named after the method for a bad argument).
func (t *T) await() (int, error) {
	ex := t.ex
	op := &ex.op
	code, fd := op.Code, op.Fd
	op.Deadline = 0
	if code != iop.Close { // Close runs even when the context is done, and while the executor closes
		if t.cancellable || ex.closing {
			if err := t.check(); err != nil {
				return 0, opError(code.Name(), fd, err)
			}
		}
		if code != iop.Sleep {
			op.Deadline = t.opDeadline()
		}
	}
	w := &t.io
	w.Begin()
	return t.complete(ex.be.Start(w, op), code, fd, classOf[code])
}

// complete waits for the operation of code on fd that its backend
// started (st) and returns its result.
func (t *T) complete(st iop.Status, code iop.Code, fd int, class opClass) (int, error) {
	ex, w := t.ex, &t.io
	for st != iop.Done {
		if st == iop.Again {
			st = ex.be.Retry(w, t.check())
			continue
		}
		t.parkKind = parkOp
		t.park()
		t.parkKind = parkNone
		st = w.St
	}
	if err := w.Err; err != nil {
		return 0, t.failed(code, fd, class, err)
	}
	ex.countOp(class)
	if w.Res < 0 {
		return 0, t.opErr(code.Name(), fd, int32(w.Res), w.Linked)
	}
	return w.Res, nil
}

// opDeadline is the deadline an operation of t takes (UnixNano; 0: none).
func (t *T) opDeadline() int64 {
	if t.hasDeadline {
		return t.deadline
	}
	return 0
}

// failed is the error of an operation of code on fd that failed with err
// (a Waiter's Err): a bad argument renamed after the method (no operation
// began: not counted), an *OpError as it is, or err wrapped in one.
func (t *T) failed(code iop.Code, fd int, class opClass, err error) error {
	if e := (*ArgError)(nil); errors.As(err, &e) {
		return argError(code.Func(), e.Arg, e.Reason)
	}
	t.ex.countOp(class)
	if e, ok := err.(*OpError); ok {
		return e
	}
	return opError(code.Name(), fd, err)
}

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
