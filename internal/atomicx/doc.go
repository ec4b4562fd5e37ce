// Package atomicx holds the library's release stores, in one place: the
// one memory-ordering primitive sync/atomic lacks, and 16-bit atomics
// (buffer-ring tails). StoreRelease32 publishes ring indices;
// StoreRelease16 and LoadAcquire16 work on the aligned 32-bit word around
// a 16-bit field. On amd64 sync/atomic.StoreUint32 is an XCHG, a full
// barrier that costs ~15 ns on the ring's hot path; a release store there
// is a plain MOV (x86 never reorders a store with earlier loads or stores),
// done in assembly so the compiler cannot move memory accesses across it.
// Elsewhere it is sync/atomic.StoreUint32.
//
// A release store does not order a later load: where a store must be seen
// before a following load (publishing the SQ tail, then reading
// IORING_SQ_NEED_WAKEUP under SQPOLL), use StoreFull32, a full barrier.
// Every ring-index publication (SQ tail, CQ head, buffer-ring and zcrx
// refill tails, the feature probes' rings) goes through this package.
package atomicx
