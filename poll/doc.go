// Package poll runs completion loops over one io_uring Ring: it submits in
// batches, reaps, and dispatches every CQE to the handler registered for its
// user_data.
//
// A Loop owns its Ring on one OS thread: New starts a goroutine, locks it to
// its thread with runtime.LockOSThread, and creates the ring there, so that
// IORING_SETUP_SINGLE_ISSUER, IORING_SETUP_DEFER_TASKRUN and a registered
// ring fd are legal. No other thread ever touches the ring.
//
// Work reaches the loop two ways:
//
//   - On the loop thread (inside a Handler or a function passed to Run):
//     Loop.Prep takes an SQE and a slot for a Handler; Loop.Cancel cancels
//     by token. These never block and allocate nothing in the steady state.
//   - From any goroutine: Loop.Do hands the loop a prep function and waits
//     for the result (context.Context cancellation becomes ASYNC_CANCEL);
//     Loop.Go is the asynchronous form whose callback runs on the loop
//     thread; Loop.Run runs a function on the loop thread.
//
// The completion core. A Loop is built on a Core, and so is package
// task's Executor: the Core is the one implementation of what both need,
// and it guarantees:
//
//   - Slots with generations: every operation in flight holds a slot; its
//     token (the SQE's user_data) is the slot index in bits 0..31 and the
//     slot's generation in bits 32..62, odd while in flight. A CQE whose
//     generation does not match is stale: counted (Stats.Stale) and never
//     delivered. Bit 63 marks SQEs no slot waits for (IgnoreUserData, the
//     Core's own wake poll and cancels, reg.InternalUserData). A slot stays
//     taken while its CQEs carry IORING_CQE_F_MORE and is freed, before its
//     handler runs, by the CQE without it. An owner that pools one record
//     per slot keeps it on the slot (AcquireKept), with no second free list.
//   - Reap and dispatch: Reap copies the ready CQEs out and hands each to
//     its slot's Handler; with the CQ empty it enters only when the kernel
//     flags CQ overflow or deferred completion work, so no CQE is lost.
//   - Sleep and wake, with no lost wakeup: the owner sleeps in one of three
//     ways (ParkIdle on a channel with nothing in flight; ParkNetpoll in
//     Go's netpoller on an eventfd registered with the ring, its P free for
//     other goroutines; a wait in io_uring_enter begun with
//     BeginKernelSleep), and Wait picks between them adaptively. The sleep
//     state is itself the claim on the wakeup: an Inbox's Post (or Stop)
//     raises the work flag, then swaps a sleeping state back to awake and
//     sends the wakeup that sleep needs (a channel send, an eventfd write,
//     or a write to the wake eventfd whose POLL_ADD the Core keeps armed in
//     the ring, which ends io_uring_enter on every kernel from 5.10); the
//     owner stores its sleep state before it checks the work flag. Both are
//     sequentially consistent, so one side always sees the other.
//   - Guarded wakes: wakers write through *os.File values, which refuse
//     writes once closed, so a wake never lands in an fd number reused
//     after Close; CQEs posted into a ring from outside go through the
//     Ring's guarded PostCQE.
//   - Every kernel: SINGLE_ISSUER|DEFER_TASKRUN (with TASKRUN_FLAG),
//     SUBMIT_ALL and a registered ring fd are taken only where the kernel
//     has them; DEFER_TASKRUN is left out of a Core that parks on its
//     eventfd where that eventfd loses wakeups (Linux 6.12, found by a
//     probe); CancelAll falls back to one cancel per slot where CANCEL_ANY
//     is missing (before 5.19).
//
// The Core's owner methods run on its owner's thread; NewCore must be
// called there, with the goroutine locked to it.
//
// Strategies (WithStrategy) decide how the loop waits for completions:
// Park, the default, submits without waiting and waits in Go's netpoller on
// an eventfd registered with the ring (IORING_REGISTER_EVENTFD), with the
// ring's notifications off (IORING_CQ_EVENTFD_DISABLED) while it is busy,
// so its P runs other goroutines the moment it waits; every other strategy
// that sleeps does so in io_uring_enter, where the Go runtime keeps the P
// until sysmon retakes it (20µs to 10ms), which starves goroutines at
// GOMAXPROCS=1 or with as many loops as Ps. Block waits in the kernel (one enter submits the batch and waits; a wait
// with nothing to submit has an EXT_ARG timeout, and min-timeout batching
// where the kernel has IORING_FEAT_MIN_TIMEOUT); Spin polls the CQ tail in user
// space up to a budget of empty polls, then blocks; Hybrid spins for a time,
// then blocks; IOPoll and HybridIOPoll reap by entering with GETEVENTS on an
// IOPOLL ring (the kernel polls the device) and never sleep in the kernel;
// SQPoll submits without entering (waking the SQ thread only on
// IORING_SQ_NEED_WAKEUP) and spins, then blocks, for completions. Every
// strategy flushes CQ overflow and deferred task work when the kernel flags
// them. With nothing in flight the loop parks its goroutine.
//
// Memory: what a prep function points the SQE at (buffers, iovecs, paths)
// must stay reachable and unmoved until the operation's last CQE. Do waits
// for that CQE even when its context is cancelled (it cancels the operation
// first), so memory passed to Do may be reused as soon as Do returns.
//
// Shutdown: Close cancels everything in flight (ASYNC_CANCEL with
// CANCEL_ANY|CANCEL_ALL, or slot by slot), waits for every CQE, closes the
// ring, unlocks and ends the thread. Waiting callers get uring.ErrClosed. A
// handler that panics or calls runtime.Goexit shuts the loop down the same
// way, and Close returns a *HandlerError.
//
// Configuration: functional options, one Option type for New and NewCore
// (WithStrategy, WithEntries, WithNetPark, ...; each option's doc says
// which of the two it configures); a bad argument, or an option given to
// the constructor it does not configure, is an *OptionError that names the
// option (the library's one option error, uring.OptionError).
//
// Errors: a negative CQE result reaches Do and Go callers as an *OpError
// (the library's one operation error, cqe.Error) that unwraps to the
// unix.Errno; EOPNOTSUPP on an IOPOLL loop says the
// file's device has no poll queues (or the I/O is not O_DIRECT).
//
// Benchmarks: see BENCH.md in this directory.
package poll
