//go:build linux

package reg

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
)

// Target is a ring that resources are registered on. *uring.Ring is one:
// RegisterTarget returns its fd, or its registered index together with
// sys.RegisterUseRegisteredRing.
type Target interface {
	RegisterTarget() (fd int, flag sys.RegisterOp)
}

// fdTarget is a Target that also has a real fd (for mmap); *uring.Ring is
// one.
type fdTarget interface {
	Fd() int
}

// ringFd returns the real ring fd of t for mmap, or -1.
func ringFd(t Target) int {
	if f, ok := t.(fdTarget); ok {
		return f.Fd()
	}
	if fd, flag := t.RegisterTarget(); flag == 0 {
		return fd
	}
	return -1
}

// GuardedTarget is a Target that can keep its fd open for the length of a
// call, so that a concurrent Close cannot let the fd number be reused by
// another file under the call. reg uses it when the target offers it.
type GuardedTarget interface {
	Target
	// UseTarget calls fn with the fd (or registered index) and flag while
	// the ring cannot be closed, or returns an error (its ErrClosed) when it
	// already is.
	UseTarget(fn func(fd int, flag sys.RegisterOp) error) error
}

// register calls io_uring_register(2) on t and wraps a failure.
func register[T any](t Target, op sys.RegisterOp, arg *T, nr uint32) (int, error) {
	if g, ok := t.(GuardedTarget); ok {
		var n int
		err := g.UseTarget(func(fd int, flag sys.RegisterOp) error {
			var err error
			n, err = sys.Register(fd, op|flag, arg, nr)
			return viaIndex(flag, wrapFor(t, op, arg, err))
		})
		return n, err
	}
	fd, flag := t.RegisterTarget()
	n, err := sys.Register(fd, op|flag, arg, nr)
	return n, viaIndex(flag, wrapFor(t, op, arg, err))
}

// viaIndex makes the EINVAL of a call through a registered ring index
// (flag IORING_REGISTER_USE_REGISTERED_RING) on a kernel without that
// flag (before 6.3) the probe's UnsupportedError naming it.
func viaIndex(flag sys.RegisterOp, err error) error {
	var re *Error
	if flag&sys.RegisterUseRegisteredRing == 0 || !errors.As(err, &re) || re.Unsupported || re.Errno() != unix.EINVAL {
		return err
	}
	if ue := probed(func() error { return supportsRegisterOp(sys.RegisterUseRegisteredRing) }); ue != nil {
		u := *ue
		u.Err = re.Err // the call's own answer
		re.Err, re.Unsupported, re.Hint = &u, true, ""
	}
	return err
}

// targetClosed reports whether t is a ring that was closed (then the
// kernel's tables went with it, and no unregister call can wait).
func targetClosed(t Target) bool {
	g, ok := t.(GuardedTarget)
	return ok && g.UseTarget(func(int, sys.RegisterOp) error { return nil }) != nil
}

// registerNil calls io_uring_register(2) with no argument.
func registerNil(t Target, op sys.RegisterOp, nr uint32) (int, error) {
	return register[byte](t, op, nil, nr)
}

// FdTarget is a Target for a raw ring fd (one made by sys.Setup, or owned
// elsewhere).
type FdTarget int

// RegisterTarget returns the fd and no flag.
func (f FdTarget) RegisterTarget() (int, sys.RegisterOp) { return int(f), 0 }

// Fd returns the fd.
func (f FdTarget) Fd() int { return int(f) }
