// Package sys is the io_uring kernel ABI for Go: every struct, constant and
// flag of include/uapi/linux/io_uring.h and io_uring/*.h (query, zcrx, BPF
// filters, the mock file) as of Linux 7.3, each marked with the release
// that added it, and thin wrappers over the raw io_uring_setup(2),
// io_uring_enter(2) and io_uring_register(2) calls and mmap(2).
//
// Contract:
//   - Names are Go names, typed, with the C name in each line's comment, so a
//     reader can grep the man pages: OpRead Op = 22 // IORING_OP_READ.
//   - Every ABI struct has a size-and-offset test; layouts hold on amd64,
//     arm64 and riscv64. TestUAPIHeader compares every constant, struct
//     size and field offset with a real uapi header (.ci/uapi.sh fetches
//     the newest the Debian archive has): a C name with no Go counterpart,
//     a value or offset that differs, or a Go name missing from a header
//     at least as new as its [release] fails it.
//   - Syscall wrappers are thin, named after the call, take syscall numbers
//     from golang.org/x/sys/unix and return errors as *os.SyscallError
//     wrapping unix.Errno.
//   - Nothing here allocates on a hot path, starts goroutines or applies
//     policy. Memory handed to the kernel through an address taken here
//     (SliceAddr, PtrAddr) must be kept reachable and pinned by the caller
//     until the kernel is done with it; the layers above do that for you.
//
// This package and internal/… are the only places that import unsafe.
package sys
