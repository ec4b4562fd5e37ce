//go:build linux

package task

// SQEs of the executor's own requests (user_data udIgnore: the Core drops
// their CQEs), built with package sqe like every other SQE of this
// package.

import (
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// fillCancel cancels the request with user_data ud (IORING_OP_ASYNC_CANCEL).
func fillCancel(s *sys.SQE, ud uint64) {
	_ = sqe.Cancel(s, ud, 0) // flags 0 is always valid
	s.UserData = udIgnore
}
