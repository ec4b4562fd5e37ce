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
//     called runtime.LockOSThread. From other threads calls that enter
//     the kernel return ErrNotIssuer.
//   - A request belongs to the thread that submitted it (the SQPOLL
//     thread's, on SQPOLL rings). When that thread exits, the kernel
//     cancels its requests still pending (-ECANCELED when their data comes,
//     on every kernel), and Go ends a thread when a goroutine returns while
//     locked to it (runtime.LockOSThread without UnlockOSThread). So submit
//     from a goroutine locked to its thread that unlocks (or stays) until
//     its last CQE, and never let a goroutine return locked while another
//     may have submitted from its thread. And call reg.StartIOWorkers on
//     each submitting thread: the kernel can cancel the requests that wait
//     for a thread's first io-wq worker when a signal interrupts its start.
//     Packages poll and task follow both rules on their own threads.
//   - Memory an SQE points at (buffers, iovecs, timespecs, paths) belongs
//     to the caller and must stay reachable and pinned until its CQE
//     (runtime.Pinner; Pins does it per request, keyed by user_data).
//     Today's Go runtime moves no heap object, so runtime.KeepAlive is all
//     it needs, but the language does not promise that: pin. The sqe
//     package documents what each op holds, and the task layer does it for
//     you.
//   - Waits (WaitCQE, WaitCQEs, WaitCQETimeout, WaitCQEsTimeout,
//     WaitCQEsSigmask) submit the SQEs GetSQE handed out only when they
//     sleep, with the io_uring_enter they sleep in: not when the CQEs they
//     wait for are ready, not with a zero timeout, never on SQPOLL rings.
//     Submit and the SubmitAndWait calls always submit.
//   - Errors: ErrUnsupported (io_uring disabled by kernel.io_uring_disabled,
//     blocked by seccomp, or a feature this kernel lacks; always an
//     *UnsupportedError that names the feature and the Linux release that
//     added it), ErrClosed, ErrSQFull, ErrTimeout, ErrNotIssuer (a
//     SINGLE_ISSUER ring, or one entered through its registered index,
//     used from another thread); syscall failures
//     are *os.SyscallError wrapping the errno; a bad option is rejected
//     before any syscall, naming it.
//   - EINTR never reaches the caller: waits retry with the remaining time.
//   - No call allocates on the submit and reap paths.
//
// What the running kernel supports is public: CheckOp, CheckSetupFlag,
// CheckFeature, CheckRegisterOp, CheckEnterFlag and CheckCapability (for
// a Capability such as CapMultishotRecv or CapBufRingInc) each answer nil
// or an *UnsupportedError with the release that added the thing (the
// Check* functions, like CheckAvailable, return an error that says why
// not, never a bare false); Probe
// gives every answer at once (it is what `uringctl probe` prints).
//
// On systems other than Linux the package compiles and New returns
// ErrUnsupported.
package uring
