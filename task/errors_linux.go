//go:build linux

package task

import (
	"errors"
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
)

var (
	// ErrClosed: the executor (or runtime) is closed or closing.
	ErrClosed = fmt.Errorf("task: executor closed: %w", uring.ErrClosed)
	// ErrChanClosed: Send on a closed task channel.
	ErrChanClosed = errors.New("task: send on closed channel")
	// ErrWouldDeadlock: a call that blocks until the executor does
	// something was made from a task of that executor (the executor's
	// thread), which would wait for itself forever. Await from the task
	// instead (Spawn and Join, t.Read ...).
	ErrWouldDeadlock = errors.New("task: a blocking call made from a task on its own executor would wait for itself (await from the task instead)")
	// errStop unwinds a task whose coroutine is stopped by Close.
	errStop = errors.New("task: stopped")
)

// OpError is the error of an operation the kernel failed: it names the op
// and the fd, and unwraps to the unix.Errno (or the context's error for a
// cancelled op).
type OpError struct {
	Op  string
	Fd  int
	Err error
}

func (e *OpError) Error() string {
	if e.Fd < 0 {
		return "task: " + e.Op + ": " + e.Err.Error()
	}
	return "task: " + e.Op + " fd " + strconv.Itoa(e.Fd) + ": " + e.Err.Error()
}

func (e *OpError) Unwrap() error { return e.Err }

// PanicError is what a joiner gets from a task that panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("task: panic: %v", e.Value) }

// ArgError names a bad argument, rejected before an SQE is built.
type ArgError struct {
	Func, Arg, Reason string
}

func (e *ArgError) Error() string { return "task: " + e.Func + ": " + e.Arg + " " + e.Reason }

// Unwrap makes errors.Is(err, unix.EINVAL) hold.
func (e *ArgError) Unwrap() error { return unix.EINVAL }
