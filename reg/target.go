//go:build linux

package reg

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
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
			n, err = registerOn(t, fd, flag, op, arg, nr)
			return err
		})
		return n, err
	}
	fd, flag := t.RegisterTarget()
	return registerOn(t, fd, flag, op, arg, nr)
}

// registerOn is register through the fd (or registered index) and flag
// that useTarget handed out for t.
func registerOn[T any](t Target, fd int, flag sys.RegisterOp, op sys.RegisterOp, arg *T, nr uint32) (int, error) {
	n, err := sys.Register(fd, op|flag, arg, nr)
	return n, viaIndex(flag, wrapFor(t, op, arg, err))
}

// useTarget calls fn with t's fd (or registered index) and flag: inside a
// GuardedTarget's UseTarget, which keeps the ring open, and so its fd
// number its own, until fn returns (or it returns the target's ErrClosed
// and does not call fn); else with what RegisterTarget says. Whatever
// reaches the ring by that number after the call that got it (an mmap
// after the register, the source of a clone) must run inside fn: after
// it, a concurrent Close may have given the number to another ring or
// file.
func useTarget(t Target, fn func(fd int, flag sys.RegisterOp) error) error {
	if g, ok := t.(GuardedTarget); ok {
		return g.UseTarget(fn)
	}
	return fn(t.RegisterTarget())
}

// mapFd returns the real ring fd to mmap through, inside useTarget's fn
// that got fd and flag: for a GuardedTarget fd itself, which UseTarget
// keeps open, or -1 when it handed out a registered index (the ring has
// no fd, or CloseRingFd is closing it); for another Target ringFd(t),
// which is the caller's to keep open.
func mapFd(t Target, fd int, flag sys.RegisterOp) int {
	if _, ok := t.(GuardedTarget); ok {
		if flag != 0 {
			return -1
		}
		return fd
	}
	return ringFd(t)
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
	return ok && errors.Is(g.UseTarget(func(int, sys.RegisterOp) error { return nil }), uring.ErrClosed)
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
