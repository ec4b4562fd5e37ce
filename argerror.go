package uring

import "github.com/pure-uring/uring/internal/argerr"

// ArgError reports a bad argument of a Ring method, rejected before
// anything reached the kernel (the library's one argument error:
// sqe.ArgError, reg.ArgError and task.ArgError are this type). It unwraps
// to syscall.EINVAL. A bad option of New is an *OptionError instead.
type ArgError = argerr.Error

// argError builds the *ArgError of method fn's argument arg.
func argError(fn, arg, reason string) error {
	return &ArgError{Func: fn, Arg: arg, Reason: reason, Pkg: "uring"}
}
