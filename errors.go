package uring

import (
	"errors"
	"github.com/pure-uring/uring/internal/argerr"
	"syscall"

	"github.com/pure-uring/uring/internal/feature"
)

var (
	// ErrUnsupported: io_uring, or the feature asked for, is not available
	// here. errors.Is(err, errors.ErrUnsupported) also holds. Every such
	// error is an *UnsupportedError, which says what is missing and which
	// Linux release added it (see CheckAvailable and the other Check functions).
	ErrUnsupported = feature.ErrUnsupported
	// ErrClosed: the ring was closed.
	ErrClosed = errors.New("uring: ring closed")
	// ErrSQFull: every SQE is handed out; submit (or reap) first.
	ErrSQFull = errors.New("uring: submission queue full")
	// ErrTimeout: a wait ended before enough completions arrived.
	ErrTimeout = errors.New("uring: timed out")
	// ErrNotIssuer: a ring tied to one OS thread was used from another:
	//   - a SINGLE_ISSUER ring entered or registered with from a thread
	//     other than its submitter (the kernel's EEXIST);
	//   - a ring entered through its registered index (WithRegisteredRingFd,
	//     WithRegisteredFdOnly) from a thread other than the one that
	//     registered it, by any call that enters the kernel, or reached by
	//     UseTarget where the index is its only way in (WithRegisteredFdOnly,
	//     after CloseRingFd): refused before any syscall, since on that
	//     thread the index names another ring, or none.
	// errors.Is(err, syscall.EEXIST) holds for both. Hand the work to the
	// owner thread instead (package poll does).
	ErrNotIssuer error = notIssuer{}
)

type notIssuer struct{}

func (notIssuer) Error() string {
	return "uring: ring used from a thread other than its own (the SINGLE_ISSUER submitter, or the thread that registered its ring index)"
}

func (notIssuer) Is(target error) bool { return target == syscall.EEXIST }

// OptionError reports a bad option, or a bad combination of options,
// before any syscall (New, and poll's and task's constructors: one type).
// It names the option and unwraps to syscall.EINVAL.
type OptionError = argerr.OptionError
