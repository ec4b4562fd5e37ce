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
	ErrClosed = errors.New("io_uring: ring closed")
	// ErrSQFull: every SQE is handed out; submit (or reap) first.
	ErrSQFull = errors.New("io_uring: submission queue full")
	// ErrTimeout: a wait ended before enough completions arrived.
	ErrTimeout = errors.New("io_uring: timed out")
	// ErrNotIssuer: a SINGLE_ISSUER ring was entered from a thread other than
	// its submitter (the kernel's EEXIST; errors.Is(err, syscall.EEXIST) holds).
	// Hand the work to the owner thread instead (package poll does).
	ErrNotIssuer error = notIssuer{}
)

type notIssuer struct{}

func (notIssuer) Error() string {
	return "io_uring: SINGLE_ISSUER ring used from a thread other than its submitter"
}

func (notIssuer) Is(target error) bool { return target == syscall.EEXIST }

// OptionError names the option (or combination) New rejected.
type OptionError struct {
	Option string // e.g. "WithDeferTaskrun"
	Reason string
}

func (e *OptionError) Error() string { return "uring: " + e.Option + ": " + e.Reason }

// Is lets errors.Is(err, syscall.EINVAL) hold for option errors, as it
// would for the kernel's answer.
func (e *OptionError) Is(target error) bool { return target == syscall.EINVAL }
