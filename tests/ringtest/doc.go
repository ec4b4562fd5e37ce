// Package ringtest makes rings for tests: New creates one closed at the
// end of the test, or skips (or fails) through the feature probes when
// the kernel lacks what the options ask for. It sits outside internal/
// because it imports package uring, which internal/ packages are below.
// It builds only on Linux, where rings exist.
package ringtest
