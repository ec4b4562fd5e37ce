//go:build linux

package poll

import "github.com/pure-uring/uring/internal/feature"

// ErrEventfdDeferTaskrun says the kernel's registered eventfd stops
// signalling deferred completion work: on Linux 6.12 (and kernels with its
// io_uring/eventfd.c) a completion that a poll wakeup queues on a
// DEFER_TASKRUN ring signals the eventfd from an RCU callback behind a
// "signal pending" bit that nothing ever clears, so every such signal after
// the first is dropped. A Core that parks on the eventfd then sleeps
// through its completions; on such kernels it does without DEFER_TASKRUN.
var ErrEventfdDeferTaskrun = feature.ErrEventfdDeferTaskrun

// eventfdSignalsDeferredWork is the kernel probe (internal/feature): nil
// when the eventfd of a DEFER_TASKRUN ring is signalled for every
// completion a poll wakeup queues, ErrEventfdDeferTaskrun when not, else
// the probe failed (not cached).
func eventfdSignalsDeferredWork() error { return feature.EventfdSignalsDeferredWork() }
