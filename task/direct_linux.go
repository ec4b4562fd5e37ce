//go:build linux

package task

import (
	"time"

	"golang.org/x/sys/unix"
)

// directBudget is how many socket calls in a row a task may complete
// without queueing a request; then one goes through the ring and the task
// parks, so a task whose socket always has data cannot keep the others of
// its executor (and the ring's completions) waiting.
const directBudget = 16

// direct reports whether t may try a socket itself (MSG_DONTWAIT) before
// queueing a RECV/SEND: that saves an SQE, a CQE and a park when data (or
// room) is already there. A cancelled task, a closing executor or an
// expired deadline take the ring path, which reports them.
func (t *T) direct() bool {
	if t.ex.closing || (t.cancellable && t.ctx.Err() != nil) {
		return false
	}
	if t.hasDeadline && time.Now().UnixNano() >= t.deadline {
		return false
	}
	if t.directRun++; t.directRun > directBudget {
		t.directRun = 0
		return false
	}
	return true
}

// directDone maps the error of a direct socket call: false when it would
// block (EAGAIN) or was interrupted, and the request goes to the ring;
// else errors are the ring path's *OpError wrapping the errno.
func directDone(name string, fd int, err error) (bool, error) {
	if err == nil {
		return true, nil
	}
	errno, ok := err.(unix.Errno)
	if !ok {
		return true, opError(name, fd, err)
	}
	if errno == unix.EAGAIN || errno == unix.EINTR {
		return false, nil
	}
	return true, opError(name, fd, errno)
}
