//go:build linux

package task

// SQE filling for the executor's own requests. The typed awaits fill SQEs
// in the files of their op family; this file keeps the executor-internal
// ones in one place.

import "github.com/pure-uring/uring/sys"

// fillCancel cancels the request with user_data ud (IORING_OP_ASYNC_CANCEL).
func fillCancel(s *sys.SQE, ud uint64) {
	*s = sys.SQE{Opcode: sys.OpAsyncCancel, Fd: -1, Addr: ud, UserData: udIgnore}
}

// fillCancelAll cancels every request in flight (ASYNC_CANCEL_ANY|ALL, 5.19).
func fillCancelAll(s *sys.SQE) {
	*s = sys.SQE{Opcode: sys.OpAsyncCancel, Fd: -1, OpFlags: sys.AsyncCancelAny | sys.AsyncCancelAll, UserData: udIgnore}
}
