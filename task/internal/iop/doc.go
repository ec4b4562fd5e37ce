// Package iop is the vocabulary between package task and its two I/O
// backends, task/internal/ring (io_uring) and task/internal/fallback
// (epoll, kqueue, goroutines): what an operation is (Op, one Code per kind
// of await), what a backend implements (Backend, and the optional Streams
// and RawSQEs, which only io_uring has), the waiter a backend completes
// (Waiter, one per task), and what a backend asks of the scheduler above
// it (Sched).
//
// Contract:
//   - Everything runs on the executor's thread, except Sched.Post and the
//     poll.Waker methods (Wake, RaiseWork), which any goroutine calls.
//   - A task method fills the executor's one Op and hands it to
//     Backend.Start with the task's Waiter. Start reads the Op before it
//     returns and never after (the next await reuses it): a backend that
//     needs the arguments later copies them. Results go to the Waiter.
//   - Start and Retry return Done (the results are in the Waiter) or
//     Parked (the task parks until the backend wakes it through
//     Waiter.Task, with Waiter.St saying Done or Again). Again means "ready
//     now, try again": the task calls Retry, with the error that ends the
//     operation instead when the task may not go on (its context ended,
//     the executor closes).
//   - Cancel ends a parked operation early; the backend still wakes the
//     task (at once, or when the kernel or a goroutine gives back what the
//     operation lent it).
//   - Memory an Op points at (buffers, iovecs, paths, the Statx target)
//     is the backend's to keep referenced, and pinned for the kernel,
//     until the operation's last completion.
//   - Errors: Waiter.Res < 0 is a negated errno (io_uring's CQE); Waiter.Err
//     is any other failure: an *sqe.ArgError for a bad argument (the task
//     renames it after its method), a ready *cqe.Error, or a cause the task
//     wraps in an *OpError named after the Code.
//
// No package here imports package task: task imports them.
package iop
