// Package sqe prepares io_uring submission queue entries: one typed builder
// per opcode of Linux 6.18 (IORING_OP_NOP through IORING_OP_PIPE) and of
// 6.19 (NOP128, URING_CMD128), their common variants and every
// io_uring_prep_* helper of liburing, plus modifiers for the SQE flags.
//
// # Use
//
// A builder fills an SQE the ring handed out, in place; modifiers come
// after it (this is queueWrite in the package example, which submits it
// with a linked read):
//
//	s, err := ring.GetSQE()
//	if err != nil {
//		return err // uring.ErrSQFull: every SQE is handed out; submit first
//	}
//	if err := sqe.Write(s, fd, msg, 0); err != nil {
//		return err // an *ArgError naming the argument; s stays a zeroed SQE (a NOP)
//	}
//	sqe.SetUserData(s, 1) // the CQE carries it
//	sqe.SetLink(s)        // the next SQE starts only after this one succeeds
//	return nil
//
// Builders are named after the op (Read, Accept, LinkTimeout), variants
// after liburing's helpers (AcceptMultishot, OpenatDirect, SendZCFixed);
// modifiers, which set flags or fields of a prepared SQE, start with Set
// (SetLink, SetAsync, SetSlot, SetUserData). Each builder's comment names
// its man page, its opcode, the Linux release that added it, and the memory
// the kernel holds until the CQE.
//
// Two words name the two kinds of registration, here and in reg and task:
// a registered file is a Slot (SetSlot, CancelSlot, the *Direct builders
// that create into one); a registered buffer is Fixed, after the kernel's
// READ_FIXED (ReadFixed, WriteFixed, SendZCFixed, and their bufIndex).
//
// # Contract
//
//   - A builder writes every field of the SQE (the base helper stores a whole
//     sys.SQE), so call modifiers (SetUserData, SetLink, SetSlot, ...) after it.
//   - Arguments are checked before anything is written. On error the SQE is
//     left untouched (still zeroed, as the ring hands it out), and the error
//     is an *ArgError naming the builder and the argument
//     ("sqe: Read: len(buf) = 5000000000 exceeds 32 bits"); it unwraps to
//     unix.EINVAL. Checked: lengths fit the SQE's 32-bit fields, iovec count
//     <= IOVMax, paths NUL-terminated without an interior NUL, fds and
//     slots in range, flag words free of unknown bits, nil pointers, and
//     combinations the kernel refuses (O_CLOEXEC on a direct descriptor).
//     What needs kernel state (is fd open, is buf inside a registered
//     buffer) is the kernel's to check: it answers in the CQE.
//   - An fd argument is a process fd: 0 <= fd < 1<<31. A negative fd (-1
//     included) is refused; the exceptions are RW, which takes -1 for "no
//     file", and dirfd arguments, which take unix.AT_FDCWD. An SQE meant for
//     a registered file is built with a placeholder fd, 0 by custom, which
//     SetSlot then overwrites with the slot.
//   - Nothing here allocates, makes a syscall or keeps a reference.
//     Preparing an SQE costs 0 allocations.
//   - Builders never take uintptr: memory comes as []byte, []unix.Iovec,
//     typed pointers (*unix.Statx_t, *unix.Msghdr, *sys.Timespec, ...).
//
// # Memory the kernel holds
//
// The kernel reads and writes user memory after io_uring_enter returns, up
// to the request's CQE (for zero-copy sends, up to the F_NOTIF CQE; for
// multishot requests, up to the last CQE, the one without F_MORE). The Go
// garbage collector does not know that: until then the caller keeps every
// buffer, iovec array, msghdr, sockaddr, timespec and path reachable and
// pinned (runtime.Pinner, which also keeps an object alive while it is
// pinned; uring.Pins does it per request, keyed by user_data). Today's Go
// runtime moves no heap object, so reachability alone (runtime.KeepAlive,
// or a reference in a live struct) is all it needs; the language does not
// promise that heap objects stay put, and pinning is what holds if they
// ever move. Goroutine stacks do move, so every builder makes the values
// whose address it passes escape to the heap (the compiler allocates them
// there; a builder itself never allocates). Higher layers (package task)
// keep everything pinned for you.
//
//   - Paths and xattr names are NUL-terminated []byte: Path and AppendPath
//     build one (AppendPath without allocating, given capacity); the caller
//     owns it.
//   - [][]byte becomes a caller-owned []unix.Iovec with Iovecs (no
//     allocation when dst has capacity).
//   - time.Duration arguments are converted into a caller-owned
//     *sys.Timespec, which the kernel reads.
//
// # Files and slots
//
// fd arguments are process fds. A registered (fixed) file is a Slot, never
// an int: SetSlot(s, slot) retargets a prepared SQE to a slot. Build the
// SQE with fd 0 (any fd the builder accepts; -1 is refused), then call
// SetSlot:
//
//	if err := sqe.Read(s, 0, buf, off); err != nil { ... }
//	if err := sqe.SetSlot(s, slot); err != nil { ... }
//
// Ops that create a descriptor have *Direct forms that install it into a
// slot instead (AllocSlot: the kernel picks one and returns it); the slot+1
// encoding the kernel wants there lives in one function. O_CLOEXEC
// (SOCK_CLOEXEC) is added to every fd-creating op (Openat, Accept, Socket,
// Pipe) so exec'd children inherit nothing; Openat2 passes its open_how as
// given.
//
// The builders are Linux's (elsewhere only Slot and ArgError
// build, so portable code can name them), and assume a little-endian
// machine (amd64, arm64, riscv64, ...).
package sqe
