// Package feature finds out what the running kernel's io_uring supports:
// opcodes (IORING_REGISTER_PROBE), setup flags, enter flags and register
// opcodes (try and see on a tiny ring made for the probe and closed again),
// feature bits, ring-size limits, kernel.io_uring_disabled, and which block
// devices can do polled I/O.
//
// Contract:
//   - Every probe returns nil when the feature is supported, an
//     *UnsupportedError (naming the feature, the release that added it and
//     the running kernel; errors.Is ErrUnsupported and
//     errors.ErrUnsupported) when it is not, and any other error when the
//     probe itself failed.
//   - Yes and no answers are cached for the life of the process; failures are
//     not, and neither is "io_uring unavailable" (EPERM/ENOSYS from
//     io_uring_setup), whose error names kernel.io_uring_disabled or seccomp.
//   - Probes are safe for concurrent use. They lock the calling goroutine to
//     its OS thread while they run (registered ring fds and io-wq are per
//     thread), map nothing they do not unmap, and leave no fd behind.
//   - On systems other than Linux every probe returns an *UnsupportedError
//     for "io_uring".
package feature
