// Package task runs straight-line Go code that awaits io_uring operations on
// thread-per-core executors.
//
// An Executor owns one Ring (SINGLE_ISSUER|DEFER_TASKRUN where the kernel has
// them) and one locked OS thread. Tasks are coroutines switched on that
// thread (the runtime coroutine switch behind iter.Pull); finished
// coroutines are pooled, so a spawn costs a queue push, and only a task that
// parks costs a switch. A task awaits an operation with a method of its
// handle (t.Read, t.Accept, t.Sleep, t.Await ...): the SQE is queued, the
// task parks, the executor submits in batches, reaps, and resumes it with the
// result. Nested awaits are plain function calls.
//
// The executor is a scheduler (coroutines, run queue, channels, groups,
// contexts) on a backend, one implementation of one small interface
// (internal/iop.Backend: start an operation for a task, retry it, cancel
// it, poll and park, wake from another goroutine, close), each in a
// directory of its own: internal/ring, io_uring on a poll.Core, which
// holds everything about completions (the slots and their generations,
// reap and dispatch, the inbox of work other goroutines post, and the
// sleep/wake protocol: see package poll for what it guarantees), and
// internal/fallback, where io_uring is not there. A T method is written
// once: it describes its operation (internal/iop.Op) and awaits it on
// whichever backend the executor has; what only io_uring can do
// (multishot requests with provided buffers, raw SQEs) the executor
// finds out once, when it starts, from the optional interfaces its
// backend has.
//
// An io_uring executor with nothing to run checks the ring briefly
// (WithSpin), then parks its goroutine in Go's netpoller on an eventfd
// registered with the ring: its thread sleeps and its P runs the process's
// other goroutines, so executors never starve them, even at GOMAXPROCS=1.
// A busy executor holds its P, though, so while executors run the
// package keeps GOMAXPROCS one above their number: it raises it when an
// executor starts and gives its raise back when the executor closes (a
// value the program set meanwhile stands, and so does a GOMAXPROCS
// environment variable; WithGOMAXPROCSUnchanged leaves an executor out of
// the count). Two busy executors on a 2-P process then leave a P to the
// program's goroutines instead of holding both.
// WithKernelWait restores the wait in io_uring_enter. While the process
// has more Ps than executors and the recent waits for completions were
// short, an executor spins a little longer and then waits in
// io_uring_enter instead (poll.Core.Wait); long waits park again.
//
// Calls that block until an executor acts (Run, Do, Handle.Wait, Close)
// return ErrWouldDeadlock when made from a task of that executor, and the
// Runtime's (Close; package goio's calls, through Runtime.OnThread) when
// made from a task of any of its executors, instead of waiting for
// themselves.
//
// Ordinary goroutines get io_uring-backed files and connections that
// behave like os's and net's from package goio (goio.On(rt): Listen, Dial,
// ListenPacket, OpenFile, and blocking calls on raw fds), which is built on
// this package's public API: SpawnOn, the T methods, Runtime.OnThread,
// Executor.AtClose (what waits outside an executor ends when it closes),
// Notifier and WithRingConnWaits.
//
// Contract:
//   - A *T is used only by its own task, on its executor's thread. Channels,
//     groups and handles are bound to one executor; ordinary goroutines reach
//     an executor through SpawnOn/Go/Run and Handle.Wait, Executor.Do, a
//     Notifier, the bridges to Go channels (FromGo, ToGo), and package
//     goio.
//   - Memory: every buffer, iovec, msghdr, sockaddr, timespec and path of an
//     operation stays referenced by the executor and pinned (runtime.Pinner)
//     until the operation's last CQE, cancelled operations included. An fd
//     produced by a cancelled accept/open/socket that completes anyway is
//     closed by the executor.
//   - Cancellation: a task's context (and a Scope's) cancels the operation it
//     waits on with ASYNC_CANCEL; a deadline is attached to each operation as
//     a LINK_TIMEOUT. The task waits for the cancelled operation's CQE (so its
//     buffer is free again when the call returns) and gets the context's
//     error.
//   - Errors: an operation failing in the kernel returns *OpError, which
//     unwraps to unix.Errno (errors.Is(err, unix.ECONNRESET) works); Open
//     returns os.Open's *os.PathError instead (os.IsNotExist works). A panic
//     in a task is recovered and returned to its joiner as *PanicError; the
//     executor keeps running. After Close every await returns ErrClosed.
//   - Multishot accept, recv, read and poll are iterators (t.AcceptMultishot,
//     t.RecvMultishot, t.ReadMultishot, t.PollMultishot): one request stays
//     armed and is re-armed when the kernel drops it (no F_MORE, or ENOBUFS
//     when the buffer ring ran dry). The caller owns the reg.BufPool the
//     buffers come from; a yielded []byte is valid until the loop body
//     returns, then its buffer goes back to the ring (once). Leaving the
//     loop cancels the request and waits for its last CQE.
//   - Shortcuts that skip the ring when it would only add a round trip:
//     Recv and Send first try the socket with MSG_DONTWAIT (a budget sends
//     every 17th call through the ring); ReadCached, for buffered files,
//     first tries preadv2(RWF_NOWAIT) when the read would be submitted alone
//     (nothing else runnable, nothing queued). A call that would block
//     falls back to the ring, so results and errors are the ring's.
//   - Every SQE is filled by the builders of package sqe, which check the
//     arguments; a rejected argument is an *ArgError named after the task
//     method (unwrapping to unix.EINVAL).
//   - Do not call runtime.Goexit (t.FailNow in tests) inside a task, nor
//     LockOSThread/UnlockOSThread: coroutines share the executor's thread.
//
// Off Linux the package builds with the same scheduler on the fallback
// backend (on macOS and the BSDs with the raw-fd methods too, waited for
// on a kqueue); the Linux-only calls do not exist there.
//
// On io_uring the user_data of every SQE is the token of a poll.Core slot
// (index and generation), so a stale CQE is recognised there; the
// executor's own SQEs (cancels, closes of abandoned fds, link timeouts)
// carry poll.IgnoreUserData.
package task
