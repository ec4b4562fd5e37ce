package uring

import (
	"errors"
	"syscall"

	"github.com/pure-uring/uring/sys"
)

// The kernel fixes a SINGLE_ISSUER ring's submitter when the ring is made,
// or when it is enabled if it was made disabled; io_uring_enter and
// io_uring_register from any other thread then fail with EEXIST.

// noteIssuer records the calling thread as the submitter of a
// SINGLE_ISSUER ring the kernel just fixed one for (New, Enable).
func (r *Ring) noteIssuer() {
	if r.flags&sys.SetupSingleIssuer != 0 {
		r.issuerTid.CompareAndSwap(0, int32(sys.Gettid()))
	}
}

// OnIssuerThread reports whether the calling OS thread may submit to and
// register with r: false only when r is a WithSingleIssuer ring whose
// submitter (the thread that made it, or enabled it when it was made
// WithDisabled) is another thread. It costs a gettid(2). Ask with the
// goroutine locked (runtime.LockOSThread), or the answer can be stale by
// the time it is used.
func (r *Ring) OnIssuerThread() bool {
	if r.flags&sys.SetupSingleIssuer == 0 {
		return true
	}
	tid := r.issuerTid.Load()
	return tid == 0 || int(tid) == sys.Gettid()
}

// issuerError turns the kernel's EEXIST for a SINGLE_ISSUER ring entered
// from another thread into ErrNotIssuer (io_uring_enter has no other
// EEXIST).
func (r *Ring) issuerError(err error) error {
	if err != nil && r.flags&sys.SetupSingleIssuer != 0 && errors.Is(err, syscall.EEXIST) {
		return ErrNotIssuer
	}
	return err
}

// registerError is issuerError for io_uring_register, where EEXIST can
// also be the opcode's own answer: ErrNotIssuer only off the issuer thread.
func (r *Ring) registerError(err error) error {
	if err != nil && errors.Is(err, syscall.EEXIST) && !r.OnIssuerThread() {
		return ErrNotIssuer
	}
	return err
}
