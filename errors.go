package uring

import (
	"errors"
	"syscall"

	"github.com/pure-uring/uring/internal/feature"
)

var (
	// ErrUnsupported: io_uring, or the feature asked for, is not available
	// here. errors.Is(err, errors.ErrUnsupported) also holds. Every such
	// error is an *UnsupportedError, which says what is missing and which
	// Linux release added it (see Available and the Supports functions).
	ErrUnsupported = feature.ErrUnsupported
	// ErrClosed: the ring was closed.
	ErrClosed = errors.New("uring: ring closed")
	// ErrSQFull: every SQE is handed out; submit (or reap) first.
	ErrSQFull = errors.New("uring: submission queue full")
	// ErrTimeout: a wait ended before enough completions arrived.
	ErrTimeout = errors.New("uring: timed out")
	// ErrNotIssuer: a SINGLE_ISSUER ring was entered from a thread other than
	// its submitter (the kernel's EEXIST; errors.Is(err, syscall.EEXIST) holds).
	// Hand the work to the owner thread instead (package poll does).
	ErrNotIssuer error = notIssuer{}
)

type notIssuer struct{}

func (notIssuer) Error() string {
	return "uring: SINGLE_ISSUER ring used from a thread other than its submitter"
}

func (notIssuer) Is(target error) bool { return target == syscall.EEXIST }

// OptionError reports a bad option, or a bad combination of options,
// rejected before anything reached the kernel. It is the library's one
// option error: New's, poll's (poll.New, poll.NewCore) and task's
// (task.NewExecutor, task.NewRuntime); poll.OptionError and
// task.OptionError are this type. It unwraps to syscall.EINVAL, the errno
// the kernel would have returned, so errors.Is(err, syscall.EINVAL)
// holds, as for the library's argument error (sqe.ArgError).
type OptionError struct {
	// Option is the name of the option's function, e.g. "WithDeferTaskrun"
	// (or poll's "WithSpinBudget", task's "WithCloseWait"); a combination
	// is named by the option that needs or excludes the other.
	Option string
	// Reason says what is wrong, naming the argument where one is bad:
	// "n = 0: the CQ needs at least one entry".
	Reason string
}

func (e *OptionError) Error() string { return "uring: " + e.Option + ": " + e.Reason }

// Unwrap returns syscall.EINVAL.
func (e *OptionError) Unwrap() error { return syscall.EINVAL }
