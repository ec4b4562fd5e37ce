package sqe

import "github.com/pure-uring/uring/internal/argerr"

// ArgError reports an argument rejected before anything reached the
// kernel: by a builder of this package, by a Ring method, or by reg or
// task (the library's one argument error: uring.ArgError, reg.ArgError
// and task.ArgError are this type). It unwraps to syscall.EINVAL, the
// errno the kernel would have returned, so errors.Is(err,
// syscall.EINVAL) holds.
type ArgError = argerr.Error

func argErr(fn, arg, reason string) error {
	return &ArgError{Func: fn, Arg: arg, Reason: reason, Pkg: "sqe"}
}
