// Package testutil holds helpers for tests against the real kernel (the
// ring-or-skip constructor is tests/ringtest, above package uring): skips
// on unsupported features, a check that
// fails when the kernel is new enough but a probe says no, and a TestMain
// leak check (fds, goroutines, mappings).
package testutil
