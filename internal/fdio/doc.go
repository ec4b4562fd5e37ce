// Package fdio has the system calls on file descriptors that the library
// makes besides io_uring's (package sys has those), for every layer: an
// eventfd for the completion loops' parks and wakeups; the non-blocking
// tries (recv and send with MSG_DONTWAIT, preadv2 with RWF_NOWAIT,
// accept4) that the task layer and package goio make before they queue a
// ring request or wait; and what io_uring has no operation for on every
// supported kernel (5.10 on): socket options and names, shutdown, fstat,
// lseek, ftruncate, pipes and their size, socket creation, dup, and a
// connect(2) that does not wait, for Unix sockets.
//
// One error style: every function returns the bare unix.Errno (nil on
// success), as a CQE gives it, so that the EAGAIN of a try allocates
// nothing and the fallback backend answers what the ring would. The
// caller that shows the error names the call (os.NewSyscallError), as os
// and net do. Every function is a thin wrapper named after its call; none
// of them blocks: sockets are connected without waiting, and only the
// tries move data, without waiting.
package fdio
