// Package testutil holds helpers for tests against the real kernel: a
// ring-or-skip constructor, skips on unsupported features, a check that
// fails when the kernel is new enough but a probe says no, and a TestMain
// leak check (fds, goroutines, mappings).
package testutil
