package argerr

import (
	"fmt"
	"syscall"
)

// OptionError reports a bad option, or a bad combination of options,
// before anything reached the kernel: uring.OptionError, poll.OptionError
// and task.OptionError are this type. It unwraps to syscall.EINVAL, the
// errno the kernel would have returned, so errors.Is(err, syscall.EINVAL)
// holds, as for the library's argument error.
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

// Options collects what the functional options of one constructor found
// wrong: the first bad option is the error (the others usually follow
// from it). Every package's option config embeds it, so options report
// the same way everywhere.
type Options struct{ err error }

// Bad records that option's argument is wrong for reason.
func (o *Options) Bad(option, reason string) {
	if o.err == nil {
		o.err = &OptionError{Option: option, Reason: reason}
	}
}

// Badf is Bad with a formatted reason.
func (o *Options) Badf(option, format string, args ...any) {
	o.Bad(option, fmt.Sprintf(format, args...))
}

// Err is the first bad option, or nil.
func (o *Options) Err() error { return o.err }
