// Package fallback is the backend of package task without io_uring: an
// iop.Backend for another OS, kernel.io_uring_disabled, a seccomp filter
// that denies io_uring_setup, or WithoutIOUring.
//
// Tasks still park and are resumed by their executor; what ends their
// waits is readiness of an fd (the poller: epoll on Linux, kqueue on macOS
// and the BSDs, parked in Go's netpoller while the executor waits), for
// the non-blocking system calls of sockets and pipes (an operation tries
// the call and waits for readiness only when it would block: "ready now,
// try again" is its iop.Again); a goroutine that ran a blocking call
// (files, opens, renames ...) and posted its result, while only the task
// parks; a timer (Sleep, a deadline).
//
// Arguments are checked as the io_uring backend checks them (by the same
// sqe builders, on a scratch SQE, on Linux), so the errors are the same.
// Operations only io_uring has (registered buffers and files, raw SQEs,
// link chains) fail with an error wrapping uring.ErrUnsupported. A
// cancellation (the task's context, Close, a deadline) ends a readiness
// wait or a sleep at once; a blocking call keeps the buffers it was given
// until it returns, as a cancelled io_uring request does until its CQE,
// and an fd it made meanwhile is closed. No blocking call runs on an fd
// number after its task was released (a caller may close the fd, and the
// number go to another file): when Close gives up on the calls (Abandon),
// one not begun never runs, one on a file (it ends by itself) is waited
// for, and one that may wait for another party for ever (on a pipe, a
// socket, a FIFO's open) runs on dups of its fds, made when it was issued.
// A splice between a file and a pipe waits for the pipe's readiness.
//
// The executor's sleep and wake follow poll.Sleeper's protocol: an Inbox
// post raises the work flag, then claims the sleep and wakes the
// executor; the executor stores its sleep state before it checks the
// flag.
//
// Executor thread only, but for the poll.Waker methods.
package fallback
