package task

import (
	"errors"
	"fmt"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/task/internal/iop"
)

var (
	// ErrClosed: the executor (or runtime) is closed or closing.
	ErrClosed = iop.ErrClosed
	// ErrChanClosed: Send on a closed task channel.
	ErrChanClosed = errors.New("task: send on closed channel")
	// ErrWouldDeadlock: a call that blocks until an executor does
	// something was made from a task of that executor (the executor's
	// thread), or a Runtime's call from a task of any of its executors,
	// which would block a thread the call may need. Await from the task
	// instead (Spawn and Join, t.Read ...).
	ErrWouldDeadlock = errors.New("task: a blocking call made from a task on an executor it needs would wait for itself (await from the task instead)")
	// errStop unwinds a task whose coroutine is stopped by Close.
	errStop = errors.New("task: stopped")
)

// OpError is the error of an operation that failed: the task method's
// name (Name), the fd, and the cause (Err): the unix.Errno of its CQE, or
// the context's error for a cancelled op, ErrClosed, an unsupported
// opcode. It is the library's one operation error, cqe.Error.
type OpError = cqe.Error

// opError builds the *OpError of task method name on fd.
func opError(name string, fd int, err error) *OpError {
	return &OpError{Name: name, Fd: fd, Err: err}
}

// PanicError is what a joiner gets from a task that panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("task: panic: %v", e.Value) }

// ArgError names a bad argument, rejected before an SQE is built; it
// unwraps to unix.EINVAL. It is the library's one argument error,
// sqe.ArgError.
type ArgError = sqe.ArgError

// argError builds the *ArgError of task function fn.
func argError(fn, arg, reason string) *ArgError {
	return &ArgError{Func: fn, Arg: arg, Reason: reason, Pkg: "task"}
}

// OptionError names a bad option argument of NewExecutor or NewRuntime
// (the option, e.g. "WithCloseWait", and in its Reason the argument); it
// unwraps to unix.EINVAL. It is the library's one option error,
// uring.OptionError.
type OptionError = uring.OptionError

// optionError builds the *OptionError of task option opt.
func optionError(opt, reason string) *OptionError {
	return &OptionError{Option: opt, Reason: reason}
}

// nilReceiver is the error of a method called on a nil *Executor or
// *Runtime.
func nilReceiver(fn string) error { return argError(fn, "receiver", "is nil") }
