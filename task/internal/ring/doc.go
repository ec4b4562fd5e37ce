// Package ring is the io_uring backend of package task: an iop.Backend on
// one poll.Core (its ring, its slots with generations, reap and dispatch,
// the sleep and wake protocol).
//
// Every operation holds a Core slot whose token is its SQE's user_data (a
// stale CQE is recognised and dropped by the Core); the record kept on the
// slot holds everything the operation lends the kernel (buffers, iovecs,
// msghdr, sockaddrs, timespecs, paths, the Statx target) referenced and
// pinned (runtime.Pinner) until the operation's last CQE, a cancelled one
// included. Every SQE is filled by a builder of package sqe, which checks
// the arguments. The backend's own SQEs (ASYNC_CANCEL, the close of an fd
// nobody will take, a LINK_TIMEOUT) carry poll.IgnoreUserData.
//
// A task's deadline is a LINK_TIMEOUT behind its operation; a cancellation
// is an ASYNC_CANCEL, and the task still waits for the CQE. An fd-result
// operation (open, accept, socket) whose task was told "cancelled" but that
// completed anyway has its fd closed here. A zero-copy send is done at its
// notification CQE. Multishot requests (Streams) are re-armed when the
// kernel drops them, and bytes they read that no loop body saw are kept
// for the fd's next read while it names the same file. Recv, Send and
// ReadCached first try the socket or the page cache without a request when
// that saves a round trip.
//
// Executor thread only, but for the poll.Waker methods.
package ring
