//go:build linux

package cqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// Result returns the CQE's result when it is >= 0, or a unix.Errno (-res)
// when it is negative. It never allocates.
func Result(c *sys.CQE) (int, error) {
	if c.Res < 0 {
		return 0, unix.Errno(-int64(c.Res))
	}
	return int(c.Res), nil
}

// Error is a failed io_uring request: the errno in its CQE, with the op and
// the fd it ran on when the caller knows them (Fd -1: not known).
type Error struct {
	Op    sys.Op
	Fd    int
	Errno unix.Errno
}

func (e *Error) Error() string {
	s := "uring: " + e.Op.String()
	if e.Fd >= 0 {
		s += " fd " + strconv.Itoa(e.Fd)
	}
	return s + ": " + e.Errno.Error()
}

// Unwrap returns the errno, so errors.Is(err, unix.ECANCELED) works.
func (e *Error) Unwrap() error { return e.Errno }

// Err returns nil when the CQE succeeded, or an *Error with op and fd (-1:
// unknown) and the errno. It allocates only on failure.
func Err(c *sys.CQE, op sys.Op, fd int) error {
	if c.Res >= 0 {
		return nil
	}
	return &Error{Op: op, Fd: fd, Errno: unix.Errno(-int64(c.Res))}
}
