package argerr

import "syscall"

// Error reports an argument rejected before anything reached the kernel.
// It unwraps to syscall.EINVAL, the errno the kernel would have returned,
// so errors.Is(err, syscall.EINVAL) holds.
type Error struct {
	Func   string // the function or method, e.g. "Read"
	Arg    string // the argument, e.g. "len(buf)"
	Reason string // what is wrong with it, e.g. "= 5000000000 exceeds 32 bits"
	Pkg    string // the package that rejected it ("uring", "sqe", "reg", "task"); "" is sqe
}

func (e *Error) Error() string {
	pkg := e.Pkg
	if pkg == "" {
		pkg = "sqe"
	}
	return pkg + ": " + e.Func + ": " + e.Arg + " " + e.Reason
}

// Unwrap returns syscall.EINVAL.
func (e *Error) Unwrap() error { return syscall.EINVAL }
