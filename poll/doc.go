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
// user_data is a slot index in the low 32 bits and the slot's generation
// in bits 32..62; bit 63 marks the loop's own SQEs (wakeups, cancels). A
// CQE whose generation does not match its slot is stale: it is counted in
// Stats.Stale and never delivered. A slot stays registered while its CQEs
// carry IORING_CQE_F_MORE (multishot), and is freed, before its handler
// runs, by the CQE without it.
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
// A goroutine that hands the loop work wakes it only when it is asleep: a
// sleeping flag is checked after enqueueing; a Park loop is woken by a
// write to its eventfd; a loop asleep in the kernel is woken by a CQE
// posted with IORING_REGISTER_SEND_MSG_RING (Linux 6.13), else by a byte
// written to a pipe whose read is armed in the ring.
//
// Memory: what a prep function points the SQE at (buffers, iovecs, paths)
// must stay reachable and unmoved until the operation's last CQE. Do waits
// for that CQE even when its context is cancelled (it cancels the operation
// first), so memory passed to Do may be reused as soon as Do returns.
//
// Shutdown: Close cancels everything in flight (ASYNC_CANCEL with
// CANCEL_ANY|CANCEL_ALL), waits for every CQE, closes the ring, unlocks and
// ends the thread. Waiting callers get uring.ErrClosed.
//
// Errors: a negative CQE result reaches Do and Go callers as an *OpError
// that unwraps to the unix.Errno; EOPNOTSUPP on an IOPOLL loop says the
// file's device has no poll queues (or the I/O is not O_DIRECT).
//
// Benchmarks: see BENCH.md in this directory.
package poll
