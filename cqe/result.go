package cqe

import (
	"strconv"
	"strings"
	"syscall"

	"github.com/pure-uring/uring/sys"
)

// Result returns the CQE's result when it is >= 0, or a syscall.Errno (the
// same type as unix.Errno) of -res when it is negative. It never allocates.
func Result(c *sys.CQE) (int, error) {
	if c.Res < 0 {
		return 0, syscall.Errno(-int64(c.Res))
	}
	return int(c.Res), nil
}

// Error is a failed io_uring operation, the one operation error of every
// layer (poll.OpError and task.OpError are this type): its opcode, the
// call's name when that is not the opcode (a task method: "read",
// "accept_multishot"), the fd it ran on (-1: not known), and why it
// failed: the errno of its CQE (syscall.Errno), or what kept it from
// completing (a cancelled context, a closed ring, an opcode the kernel
// lacks). errors.Is(err, syscall.ECANCELED) and the like work through Unwrap.
type Error struct {
	Op     sys.Op
	Name   string
	Fd     int
	Err    error
	IOPoll bool // the ring is an IOPOLL ring (explains EOPNOTSUPP)
}

func (e *Error) Error() string {
	name := e.Name
	if name == "" {
		name = e.Op.String()
	}
	s := "uring: " + name
	if e.Fd >= 0 {
		s += " fd " + strconv.Itoa(e.Fd)
	}
	msg := "<nil>"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	s += ": " + msg
	if e.IOPoll && e.Errno() == syscall.EOPNOTSUPP {
		s += " (IOPOLL ring: the file is not O_DIRECT, or its block device has no poll queues)"
	}
	if e.Errno() == syscall.EFAULT && e.fixedBuffer() {
		s += " (the buffer is not inside the registered buffer its index names: slice it from reg.Buffers.Buf)"
	}
	return s
}

// fixedBuffer reports whether the operation reads or writes a registered
// buffer, whose EFAULT means a buffer outside it.
func (e *Error) fixedBuffer() bool {
	switch e.Op {
	case sys.OpReadFixed, sys.OpWriteFixed, sys.OpReadvFixed, sys.OpWritevFixed:
		return true
	}
	return strings.HasSuffix(e.Name, "_fixed")
}

// Unwrap returns the cause, so errors.Is(err, syscall.ECANCELED) works.
func (e *Error) Unwrap() error { return e.Err }

// Errno returns the CQE's errno, or 0 when the cause is not an errno.
func (e *Error) Errno() syscall.Errno {
	if en, ok := e.Err.(syscall.Errno); ok {
		return en
	}
	return 0
}

// Err returns nil when the CQE succeeded, or an *Error with op and fd (-1:
// unknown) and the errno. op is the opcode of the SQE the CQE answers: the
// zero sys.Op is NOP, and the message names it so; where the opcode is not
// kept, Result gives the bare errno. It allocates only on failure.
func Err(c *sys.CQE, op sys.Op, fd int) error {
	if c.Res >= 0 {
		return nil
	}
	return &Error{Op: op, Fd: fd, Err: syscall.Errno(-int64(c.Res))}
}
