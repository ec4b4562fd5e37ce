package uring

import "github.com/pure-uring/uring/sys"

// DontFork marks the ring's memory (the SQ and CQ rings and the SQEs,
// mapped from the kernel or, WithNoMmap, by this package) MADV_DONTFORK,
// so that a child made by fork(2) does not inherit it:
// io_uring_ring_dontfork(3) (liburing 2.0). A child that inherited the
// rings could corrupt them; os/exec and syscall.ForkExec exec at once and
// never touch them, so a Go program needs this only around a raw fork.
// Resize marks the new rings too. ErrClosed after Close.
func (r *Ring) DontFork() error {
	l := r.life
	if !l.acquire() {
		return ErrClosed
	}
	defer l.releaseRef()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dontFork = true
	return l.markDontFork()
}

// markDontFork marks every mapping of the ring (mu held).
func (l *lifetime) markDontFork() error {
	for _, b := range l.regions {
		if err := sys.MadviseDontFork(b); err != nil {
			return err
		}
	}
	return nil
}
