// Package uring is a pure-Go (no cgo) io_uring ring: it sets the ring up
// with io_uring_setup(2), maps the submission and completion queues from
// the offsets the kernel returns (or from memory it maps itself with
// IORING_SETUP_NO_MMAP), hands out zeroed SQEs, submits, waits (with
// timeouts through IORING_ENTER_EXT_ARG) and reaps completions.
//
// Contract:
//   - A Ring is not safe for concurrent use except Close and PostWake,
//     which may race any other call. The Ring's lifetime is a reference
//     count held by every syscall on it: Close wakes calls sleeping in the
//     kernel (a CQE posted from outside the ring, or, on kernels without
//     MSG_RING and for rings no CQE can reach, a signal to the waiting
//     thread) and returns once the last of them has left, the fd closed;
//     afterwards every call returns ErrClosed, nothing is unmapped twice,
//     and a racing access to ring memory cannot fault. The poll and task
//     packages build safe multi-goroutine access on top.
//   - SINGLE_ISSUER, DEFER_TASKRUN and a registered ring fd tie the ring
//     to one OS thread: create and use such a ring from a goroutine that
//     called runtime.LockOSThread.
//   - Memory an SQE points at (buffers, iovecs, timespecs, paths) belongs
//     to the caller and must stay reachable and pinned until its CQE; the
//     sqe package documents what each op holds, and the task layer does it
//     for you.
//   - Errors: ErrUnsupported (io_uring disabled by kernel.io_uring_disabled,
//     blocked by seccomp, or a feature this kernel lacks; always an
//     *UnsupportedError that names the feature and the Linux release that
//     added it), ErrClosed,
//     ErrSQFull, ErrTimeout; syscall failures are *os.SyscallError wrapping
//     the errno; a bad option is rejected before any syscall, naming it.
//   - EINTR never reaches the caller: waits retry with the remaining time.
//   - No call allocates on the submit and reap paths.
//
// What the running kernel supports is public: SupportsOp, SupportsSetupFlag,
// SupportsFeature, SupportsRegisterOp, SupportsEnterFlag and Supports (for
// a Capability such as CapMultishotRecv or CapBufRingInc) each answer nil
// or an *UnsupportedError with the release that added the thing; Probe
// gives every answer at once (it is what `uringctl probe` prints).
//
// On systems other than Linux the package compiles and New returns
// ErrUnsupported.
package uring
