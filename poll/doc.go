// Package poll runs io_uring completion loops, so that goroutines can do
// io_uring operations without owning a ring: you describe an operation by
// filling its SQE (with a package sqe builder), and get back its result
// when its CQE arrives. The package submits in batches, reaps, and hands
// each CQE to the code that asked for it.
//
// # Which one to use
//
// Loop is a ring on a thread of its own, for many operations in flight:
// network servers, multishot requests, timers. Any goroutine hands it an
// operation:
//
//   - Do fills an SQE on the loop thread, submits it and waits for its
//     result. When its context ends first, Do cancels the operation and
//     still waits for its CQE, so memory the SQE points at is free again
//     when Do returns.
//   - Go does not wait: its callback runs on the loop thread for every CQE
//     of the operation (a multishot one posts several; Result.More says
//     whether more follow).
//   - Run runs a function on the loop thread. There, and in handlers,
//     Prep and Start queue operations with a Handler for their CQEs,
//     PrepBatch queues many with one BatchHandler (one slot for the
//     batch, one SQ check per run of SQEs: the loop's fastest form), and
//     Cancel cancels one by its Token; these never block, and allocate
//     nothing in the steady state.
//
// Shared is a ring without a thread of its own, for blocking-style calls
// from ordinary goroutines (it is what package task/fileio reads files
// with): a goroutine alone submits and waits in one io_uring_enter, as
// pread(2) would, with no hop to another thread; goroutines that call Do
// at the same time share one submit and one reap.
//
// Core is the machinery under Loop and under package task's Executor:
// slots and tokens, reaping and dispatch, sleeping and waking. Use it to
// write a scheduler of your own that owns the ring's thread; to use
// io_uring from ordinary code, Loop and Shared are simpler, and package
// task runs code that reads like blocking calls on io_uring executors.
//
// A Core, and a Loop with the default strategy, start on every kernel
// from Linux 5.10: what the kernel lacks (SINGLE_ISSUER, DEFER_TASKRUN, a
// registered ring fd, CANCEL_ANY) is done without.
//
// # Memory
//
// What a prep function points an SQE at (buffers, iovecs, paths,
// timespecs) must stay reachable and unmoved until the operation's last
// CQE. Loop.Do waits for that CQE even when its context is cancelled, so
// memory passed to it may be reused as soon as it returns; Shared.Do pins
// the buffer given as its keep argument until the CQE. With Go and Prep,
// keep the memory reachable until the callback or handler gets the CQE
// without F_MORE (with PrepBatch, each SQE's).
//
// # Errors
//
// A negative CQE result reaches Loop.Do and Go callers as an *OpError (the
// library's one operation error, cqe.Error) that unwraps to the unix.Errno:
// errors.Is(err, unix.ECANCELED) works. Shared.Do returns the CQE's res as
// is (negative: -errno). EOPNOTSUPP on an IOPOLL loop says the file's
// device has no poll queues (or the I/O is not O_DIRECT).
//
// # Threads
//
// Loop's methods are safe for concurrent use, except Prep, PrepBatch,
// Start, Cancel, InFlight and Ring, which belong to the loop thread: call them from a
// Handler, a Go callback or a function passed to Run; called from another
// goroutine they race with the loop, undetected. Handlers and callbacks
// run on the loop thread and must not block. A Core's owner methods run
// on the thread that created it, locked to its goroutine (NewCore must be
// called there).
//
// # Configuration
//
// Functional options, one Option type for New and NewCore (WithStrategy,
// WithEntries, WithNetPark, ...; each option's doc says which of the two
// it configures). A bad argument, or an option given to the constructor
// it does not configure, is an *OptionError that names the option (the
// library's one option error, uring.OptionError).
//
// Strategies (WithStrategy) decide how a Loop waits for completions. Park,
// the default, submits without waiting and waits in Go's netpoller on an
// eventfd registered with the ring (IORING_REGISTER_EVENTFD), with the
// ring's notifications off (IORING_CQ_EVENTFD_DISABLED) while it is busy,
// so its P runs other goroutines the moment it waits. Every other strategy
// that sleeps does so in io_uring_enter, where the Go runtime keeps the P
// until sysmon retakes it (20µs to 10ms), which starves goroutines at
// GOMAXPROCS=1 or with as many loops as Ps. Block waits in the kernel (one
// enter submits the batch and waits; a wait with nothing to submit has an
// EXT_ARG timeout, and min-timeout batching where the kernel has
// IORING_FEAT_MIN_TIMEOUT); Spin polls the CQ tail in user space up to a
// budget of empty polls, then blocks; Hybrid spins for a time, then
// blocks; IOPoll and HybridIOPoll reap by entering with GETEVENTS on an
// IOPOLL ring (the kernel polls the device) and never sleep in the kernel;
// SQPoll submits without entering (waking the SQ thread only on
// IORING_SQ_NEED_WAKEUP) and spins, then blocks, for completions. Every
// strategy flushes CQ overflow and deferred task work when the kernel
// flags them. With nothing in flight the loop parks its goroutine.
//
// # Shutdown
//
// Loop.Close cancels everything in flight (ASYNC_CANCEL with
// CANCEL_ANY|CANCEL_ALL, or slot by slot), waits for every CQE, closes the
// ring, unlocks and ends the thread. Waiting callers get uring.ErrClosed.
// A handler that panics or calls runtime.Goexit shuts the loop down the
// same way, and Close returns a *HandlerError. Shared.Close also waits for
// the CQEs of what it cancels.
//
// # How it works
//
// A Loop owns its Ring on one OS thread: New starts a goroutine, locks it
// to its thread with runtime.LockOSThread, and creates the ring there, so
// that IORING_SETUP_SINGLE_ISSUER, IORING_SETUP_DEFER_TASKRUN and a
// registered ring fd are legal. No other thread ever touches the ring: Do,
// Go and Run post to the loop's inbox and wake it.
//
// A Loop is built on a Core, and so is package task's Executor: the Core
// is the one implementation of what both need, and it guarantees:
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
//     probe); where it signals them late (6.18: from an RCU callback,
//     15-35 ms after the poll wakeup that queued the work), a Core with
//     the wake eventfd keeps DEFER_TASKRUN and, while it has operations
//     in flight and a P to spare, waits in io_uring_enter instead of the
//     netpoller (one without it leaves DEFER_TASKRUN out); CancelAll
//     falls back to one cancel per slot where CANCEL_ANY is missing
//     (before 5.19).
//
// A Shared ring is a plain one (no SINGLE_ISSUER, DEFER_TASKRUN or
// SQPOLL). The goroutine that leads submits and waits; the others publish
// their SQEs under the Shared's lock, wake the leader through an eventfd
// whose POLL_ADD is in the ring, and park until it hands them their result
// (or the lead). While operations keep coming, a reaper goroutine takes
// the lead, so that one goroutine submits and reaps in batches; having
// woken the goroutines a reap completed, it yields its P to them, so that
// their next SQEs go in with its next enter — unless the kernel still
// holds more than 32 operations, when reaping again at once counts more.
package poll

// Benchmarks of the strategies, and of Loop against a raw Ring, are in
// BENCH.md in this directory.
