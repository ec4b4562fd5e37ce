//go:build linux

package uring

import "github.com/pure-uring/uring/sys"

// What the tests of package uring_test see of a Ring's insides.

// CloseStats reports what Close did on r: rounds of wake CQEs posted,
// signals sent to waiting threads, and how often it woke up to check on
// the waiters again (its backoff timer).
func CloseStats(r *Ring) (cqeWakes, signals, rechecks uint32) {
	l := r.life
	return l.cqeWakes.Load(), l.signals.Load(), l.rechecks.Load()
}

// Waiters returns the threads recorded inside a call on r that may sleep.
func Waiters(r *Ring) []int32 {
	l := r.life
	l.wmu.Lock()
	defer l.wmu.Unlock()
	return append([]int32(nil), l.waiters...)
}

// EnterFd returns what r passes io_uring_enter(2) as its fd: the ring fd
// or its registered index.
func EnterFd(r *Ring) int { return r.enterFd }

// WakeBySignalOnly makes Close interrupt r's waiters with signals, as on a
// kernel without MSG_RING, so that path runs on every kernel.
func WakeBySignalOnly(r *Ring) { r.life.signalOnly = true }

// IsClosing reports whether Close has begun on r.
func IsClosing(r *Ring) bool { return r.life.closed.Load() }

// InlineSkip returns how many SubmitAndWait calls on r will wait the plain
// way before the inline-first path is tried again (sq_inline.go).
func InlineSkip(r *Ring) uint32 { return r.inline.skip.Load() }

// NextSQSlot is the SQ slot of the next SQE GetSQE hands out.
func NextSQSlot(r *Ring) uint32 { return r.sq.sqeTail & r.sq.mask }

// SetSQIndex writes idx into the SQ index array at slot (the kernel reads
// the SQE at idx for that slot's submission): an idx of at least the SQ's
// size makes the kernel drop the submission.
func SetSQIndex(r *Ring, slot, idx uint32) {
	p := &r.params
	sys.Uint32sAt(r.life.regions[0], p.SQOff.Array, p.SQEntries)[slot] = idx
}
