package poll

import "sync/atomic"

// Sleeper is the lost-wakeup protocol between an owner that sleeps and the
// goroutines that post it work, written once for every owner: the Core
// (and through it poll.Loop and the task executor on io_uring) and the
// task layer's executor without io_uring.
//
//   - A waker raises the work flag (RaiseWork), then claims the owner's
//     sleep (Claim): the one that swaps a sleep state back to awake sends
//     the wakeup that sleep needs; others send nothing.
//   - The owner stores its sleep state, then checks the flag (Begin); it
//     stores awake when the sleep ends (End).
//
// The flag's store and the state's load, and the state's store and the
// flag's load, are sequentially consistent: one side always sees the
// other, so a post never waits for an owner that sleeps on.
type Sleeper struct {
	sleeping state32       // awake, or the kind of sleep (the owner's own values)
	work     atomic.Uint32 // posted messages (or a stop) wait for the owner
}

// RaiseWork sets the work flag (an Inbox's Post does, before Wake).
func (s *Sleeper) RaiseWork() { s.work.Store(1) }

// TakeWork lowers the work flag and reports whether it was up (an Inbox's
// Take does, before it reads its queue).
func (s *Sleeper) TakeWork() bool {
	if s.work.Load() == 0 {
		return false
	}
	s.work.Store(0)
	return true
}

// HasWork reports whether posted work waits for the owner.
func (s *Sleeper) HasWork() bool { return s.work.Load() != 0 }

// Begin stores the sleep state state (not 0) and reports whether the owner
// may sleep: false, awake again, when work was posted already.
func (s *Sleeper) Begin(state uint32) bool {
	s.sleeping.Store(state)
	if s.work.Load() != 0 {
		s.End()
		return false
	}
	return true
}

// End marks the owner awake after a sleep. A release store is enough (a
// plain MOV on amd64): a waker that still reads the sleep only sends a
// spare wakeup; going to sleep is what needs the full barrier.
func (s *Sleeper) End() { s.sleeping.StoreRelease(0) }

// Claim swaps a sleep state back to awake and returns it: the caller then
// sends the wakeup that kind of sleep needs. 0 when the owner is awake or
// another waker claimed the sleep.
func (s *Sleeper) Claim() uint32 {
	st := s.sleeping.Load()
	if st == 0 || !s.sleeping.CompareAndSwap(st, 0) {
		return 0
	}
	return st
}

// State returns the sleep state now (for observers: it may change at once).
func (s *Sleeper) State() uint32 { return s.sleeping.Load() }
