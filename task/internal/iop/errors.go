package iop

import (
	"errors"
	"fmt"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/internal/argerr"
)

// ErrClosed is package task's ErrClosed: the executor is closed or
// closing.
var ErrClosed = fmt.Errorf("task: executor closed: %w", uring.ErrClosed)

// NeedsRing is the cause of an operation only io_uring has, on the
// fallback backend: it wraps uring.ErrUnsupported and names what.
func NeedsRing(what string) error {
	return fmt.Errorf("%w: %s needs io_uring, and this executor runs on the fallback backend", uring.ErrUnsupported, what)
}

// BadArg is the error of a bad argument arg; package task names the
// method (and its Pkg) when it returns it.
func BadArg(arg, reason string) error { return &argerr.Error{Arg: arg, Reason: reason} }

// RenameArg is err, an argument error, for argument arg (a path checked
// by sqe.AppendPath is "path", "oldpath", "newpath"); other errors are
// returned as they are.
func RenameArg(err error, arg string) error {
	var e *argerr.Error
	if errors.As(err, &e) {
		return BadArg(arg, e.Reason)
	}
	return err
}

// Unsupported is the error of an operation of code c that only io_uring
// has (what names the missing ability), on the fallback backend.
func Unsupported(c Code, what string) error {
	return &cqe.Error{Name: c.Name(), Fd: -1, Err: NeedsRing(what)}
}
