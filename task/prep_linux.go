//go:build linux

package task

// SQEs of the executor's own requests (user_data udIgnore), built with
// package sqe like every other SQE of this package.

import (
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// fillCancel cancels the request with user_data ud (IORING_OP_ASYNC_CANCEL).
func fillCancel(s *sys.SQE, ud uint64) {
	_ = sqe.Cancel(s, ud, 0) // flags 0 is always valid
	s.UserData = udIgnore
}

// fillCancelAll cancels every request in flight (ASYNC_CANCEL_ANY, 5.19).
func fillCancelAll(s *sys.SQE) {
	sqe.CancelAny(s)
	s.UserData = udIgnore
}

// fillWake posts a wake CQE (user_data udWake) to the ring ringFd
// (IORING_OP_MSG_RING), with no CQE of its own on success.
func fillWake(s *sys.SQE, ringFd int) {
	_ = sqe.MsgRing(s, ringFd, 0, udWake) // a ring fd is a valid fd
	sqe.SkipSuccess(s)
	s.UserData = udIgnore
}
