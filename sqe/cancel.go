//go:build linux

package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
)

// Cancellation: the cancelled request completes with ECANCELED (or its own
// result if it was already finishing); the cancel request completes with 0
// (or the count matched, with sys.AsyncCancelAll), ENOENT when nothing
// matched, or EALREADY when the match is running and cannot be stopped.
// sys.AsyncCancelAll in flags cancels every match instead of the first.

// Cancel prepares the cancellation of the request(s) whose user_data is
// userData: io_uring_prep_cancel64(3), IORING_OP_ASYNC_CANCEL, Linux 5.5
// (AsyncCancelAll: 5.19). No memory is held.
func Cancel(s *sys.SQE, userData uint64, flags uint32) error {
	if err := checkFlags("Cancel", "flags", flags, sys.AsyncCancelAll); err != nil {
		return err
	}
	prep(s, sys.OpAsyncCancel, -1, userData, 0, 0)
	s.OpFlags = flags
	return nil
}

// CancelFd prepares the cancellation of the request(s) on fd:
// io_uring_prep_cancel_fd(3), IORING_ASYNC_CANCEL_FD, Linux 5.19. No memory
// is held.
func CancelFd(s *sys.SQE, fd int, flags uint32) error {
	if err := firstErr(checkFd("CancelFd", "fd", fd), checkFlags("CancelFd", "flags", flags, sys.AsyncCancelAll)); err != nil {
		return err
	}
	prep(s, sys.OpAsyncCancel, fd, 0, 0, 0)
	s.OpFlags = flags | sys.AsyncCancelFd
	return nil
}

// CancelSlot prepares the cancellation of the request(s) on the
// registered file in slot: IORING_ASYNC_CANCEL_FD|FD_FIXED, Linux 6.0. No
// memory is held.
func CancelSlot(s *sys.SQE, slot Slot, flags uint32) error {
	if err := firstErr(checkSlot("CancelSlot", "slot", slot, false), checkFlags("CancelSlot", "flags", flags, sys.AsyncCancelAll)); err != nil {
		return err
	}
	prep(s, sys.OpAsyncCancel, int(slot), 0, 0, 0)
	s.OpFlags = flags | sys.AsyncCancelFd | sys.AsyncCancelFdFixed
	return nil
}

// CancelOp prepares the cancellation of the request(s) with opcode op:
// IORING_ASYNC_CANCEL_OP, Linux 6.6. No memory is held.
func CancelOp(s *sys.SQE, op sys.Op, flags uint32) error {
	if op >= sys.OpLast {
		return argErr("CancelOp", "op", "= "+strconv.Itoa(int(op))+" is not a known opcode")
	}
	if err := checkFlags("CancelOp", "flags", flags, sys.AsyncCancelAll); err != nil {
		return err
	}
	prep(s, sys.OpAsyncCancel, -1, 0, uint32(op), 0)
	s.OpFlags = flags | sys.AsyncCancelOp
	return nil
}

// CancelAny prepares the cancellation of every pending request of the ring:
// IORING_ASYNC_CANCEL_ANY, Linux 5.19. The result is the number cancelled
// (or ENOENT). No memory is held.
func CancelAny(s *sys.SQE) {
	prep(s, sys.OpAsyncCancel, -1, 0, 0, 0)
	s.OpFlags = sys.AsyncCancelAny
}
