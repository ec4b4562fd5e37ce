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

// ErrEventfdDeferTaskrunLate says the kernel's registered eventfd signals
// deferred completion work late: a completion that a poll wakeup queues on
// a DEFER_TASKRUN ring is signalled from an RCU callback a grace period
// later (15-35 ms on a 6.18 VM), not by the wakeup. A Core with the wake
// eventfd (WithKernelWake) keeps DEFER_TASKRUN there and its ParkNetpoll
// waits in io_uring_enter while work is in flight and a P is spare
// (without one it parks, and wakes late); without the wake eventfd the
// Core does without DEFER_TASKRUN.
var ErrEventfdDeferTaskrunLate = feature.ErrEventfdDeferTaskrunLate

// eventfdSignalsDeferredWork is the kernel probe (internal/feature): nil
// when the eventfd of a DEFER_TASKRUN ring is signalled for every
// completion a poll wakeup queues, by the wakeup;
// ErrEventfdDeferTaskrunLate when later; ErrEventfdDeferTaskrun when not
// after the first; else the probe failed (not cached).
func eventfdSignalsDeferredWork() error { return feature.EventfdSignalsDeferredWork() }
