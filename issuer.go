package uring

import (
	"errors"
	"runtime"
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

// OnIssuerThread reports whether SINGLE_ISSUER lets the calling OS thread
// submit to and register with r: false only when r is a WithSingleIssuer
// ring whose submitter (the thread that made it, or enabled it when it was
// made WithDisabled) is another thread. It does not look at a registered
// ring index (WithRegisteredRingFd, WithRegisteredFdOnly), which ties the
// ring's enters to the registering thread too (ErrNotIssuer from the
// others). It costs a gettid(2). Ask with the goroutine locked
// (runtime.LockOSThread), or the answer can be stale by the time it is
// used.
func (r *Ring) OnIssuerThread() bool {
	if r.flags&sys.SetupSingleIssuer == 0 {
		return true
	}
	tid := r.issuerTid.Load()
	return tid == 0 || int(tid) == sys.Gettid()
}

// A registered ring index (WithRegisteredRingFd, WithRegisteredFdOnly)
// names the ring only in the registering thread's table of registered
// rings (io_uring_task.registered_rings in the kernel): on another thread
// the same index names no ring (EINVAL, EBADF) or one that thread
// registered, which an enter through it would submit to and wait on. So
// every io_uring_enter through the index checks the thread first, and
// UseTarget does before it hands the index out.

// enterOnThread lets an io_uring_enter with flags through: at once
// without EnterRegisteredRing; with it (the ring is entered by its
// registered index), only on the registering thread, to which it then
// locks the goroutine until enterDone, so that the enter runs there;
// elsewhere it returns ErrNotIssuer. The check compares the runtime's
// record of the thread (sys.CurrentThread), no system call.
func (r *Ring) enterOnThread(flags sys.EnterFlags) error {
	if flags&sys.EnterRegisteredRing == 0 {
		return nil
	}
	runtime.LockOSThread()
	if !sys.CurrentThread().Is(r.life.thread) {
		runtime.UnlockOSThread()
		return ErrNotIssuer
	}
	return nil
}

// enterDone ends what a nil enterOnThread(flags) began.
func enterDone(flags sys.EnterFlags) {
	if flags&sys.EnterRegisteredRing != 0 {
		runtime.UnlockOSThread()
	}
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
