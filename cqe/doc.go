// Package cqe decodes io_uring completion queue entries: a result as a
// byte count (or fd, slot, mask: whatever the op returns) or an error
// wrapping unix.Errno; the flag bits (F_MORE, F_BUFFER with its buffer id,
// F_SOCK_NONEMPTY, F_NOTIF, F_BUF_MORE, F_32, F_SKIP); the extras of
// 32-byte CQEs; and the payload a multishot recvmsg leaves in a provided
// buffer.
//
// Contract:
//   - Nothing here makes a syscall, allocates on a success path, or panics,
//     whatever bits or bytes it is given (fuzzed). Result returns a bare
//     unix.Errno (no allocation); Err wraps it in an *Error that carries the
//     op and fd, allocating only when there is an error. Both satisfy
//     errors.Is(err, unix.ECANCELED) and the like.
//   - The buffer id is read only when F_BUFFER is set.
//   - A *sys.CQE from the ring points into shared memory that the kernel
//     reuses once the CQE is marked seen: decode before Ring.CQESeen, or
//     copy the CQE (Ring.Reap).
//
// The package is for Linux: elsewhere only the flag helpers and result
// decoding (More, Buffer, Result, Err, Error, ...) build, so portable code
// can name them.
package cqe
