// Package osfd wraps the few system calls on file descriptors that the net
// and os adapters of package goio need and that io_uring has no operation for
// on every supported kernel (5.10 on): socket options, socket names,
// shutdown, fstat, ftruncate, pipes and their size, socket creation and a
// non-blocking connect(2) for Unix sockets.
//
// Every function is a thin wrapper named after its call; errors are
// *os.SyscallError naming the call (errors.Is the unix.Errno). None of
// them blocks: sockets are connected without waiting, and nothing here
// reads or writes data.
package osfd
