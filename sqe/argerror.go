package sqe

import "syscall"

// ArgError reports an argument rejected before anything reached the
// kernel: by a builder of this package, or by reg or task (the library's
// one argument error: reg.ArgError and task.ArgError are this type). It
// unwraps to syscall.EINVAL, the errno the kernel would have returned, so
// errors.Is(err, syscall.EINVAL) holds.
type ArgError struct {
	Func   string // the function or method, e.g. "Read"
	Arg    string // the argument, e.g. "len(buf)"
	Reason string // what is wrong with it, e.g. "= 5000000000 exceeds 32 bits"
	Pkg    string // the package that rejected it ("sqe", "reg", "task")
}

func (e *ArgError) Error() string {
	pkg := e.Pkg
	if pkg == "" {
		pkg = "sqe"
	}
	return pkg + ": " + e.Func + ": " + e.Arg + " " + e.Reason
}

// Unwrap returns syscall.EINVAL.
func (e *ArgError) Unwrap() error { return syscall.EINVAL }

func argErr(fn, arg, reason string) error {
	return &ArgError{Func: fn, Arg: arg, Reason: reason, Pkg: "sqe"}
}
