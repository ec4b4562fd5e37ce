//go:build linux

package poll

import (
	"errors"
	"fmt"

	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// ErrNotLoopThread: a loop-thread method was called from another
// goroutine (checked only in test builds; see the package doc).
var ErrNotLoopThread = errors.New("poll: called off the loop thread; use Do, Go or Run")

// OpError is a failed operation: its opcode and the errno of its CQE
// (Err), with IOPoll set on an IOPOLL ring. It is the library's one
// operation error, cqe.Error.
type OpError = cqe.Error

// resultErr turns a CQE result into nil or an *OpError.
func resultErr(op sys.Op, res int32, iopoll bool) error {
	if res >= 0 {
		return nil
	}
	return &OpError{Op: op, Fd: -1, Err: unix.Errno(-res), IOPoll: iopoll}
}

// HandlerError is the error Close returns when a Handler or a Go callback
// panicked (Value) or called runtime.Goexit (t.FailNow in a test): the
// loop shut down, as it does when its ring fails.
type HandlerError struct {
	Value  any
	Goexit bool
}

func (e *HandlerError) Error() string {
	if e.Goexit {
		return "poll: a handler called runtime.Goexit on the loop thread; the loop shut down"
	}
	return fmt.Sprintf("poll: a handler panicked on the loop thread: %v; the loop shut down", e.Value)
}
