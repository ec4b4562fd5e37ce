// Package tests holds integration, fault and soak tests of the whole
// library against the real kernel: environment faults (disabled io_uring,
// seccomp), lifecycle faults, GC stress and leaks, and the long-running
// soak and load tests behind the "soak" build tag.
package tests
