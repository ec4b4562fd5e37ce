//go:build linux

package feature

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// ErrEventfdDeferTaskrun says the kernel's registered eventfd stops
// signalling deferred completion work: on Linux 6.12 (and kernels with its
// io_uring/eventfd.c) a completion that a poll wakeup queues on a
// DEFER_TASKRUN ring signals the eventfd from an RCU callback behind a
// "signal pending" bit that nothing ever clears, so every such signal after
// the first is dropped (6.1 cleared the bit). A Core that parks on the
// eventfd then sleeps through its completions; on such kernels it does
// without DEFER_TASKRUN instead.
var ErrEventfdDeferTaskrun = errors.New("uring: this kernel's eventfd stops signalling DEFER_TASKRUN completion work after the first poll wakeup (Linux 6.12's io_eventfd_signal never clears IO_EVENTFD_OP_SIGNAL_BIT)")

// ErrEventfdDeferTaskrunLate says the kernel's registered eventfd signals
// deferred completion work late: the completion that a poll wakeup queues
// on a DEFER_TASKRUN ring is not signalled by the wakeup itself but from
// an RCU callback (io_eventfd_signal's deferred path), a grace period
// later: 15-35 ms on this project's 6.18 VM, for every socket or pipe
// read that had to wait. A Core parked on the eventfd with such work in
// flight would sleep that long; on such kernels it waits in
// io_uring_enter instead, or does without DEFER_TASKRUN.
var ErrEventfdDeferTaskrunLate = errors.New("uring: this kernel's eventfd signals DEFER_TASKRUN completion work late (from an RCU callback, not the poll wakeup that queued it)")

var evfdProbe struct {
	mu   sync.Mutex
	done bool
	err  error
}

// EventfdSignalsDeferredWork reports whether the eventfd of a
// SINGLE_ISSUER|DEFER_TASKRUN ring is signalled for every completion that
// a poll wakeup queues, by that wakeup: nil yes, ErrEventfdDeferTaskrunLate
// signalled later (from an RCU callback), ErrEventfdDeferTaskrun not at
// all after the first, anything else the probe could not run (not cached).
// It tries three times: a pipe read that waits for data through an
// internal poll, a write to the pipe (whose wakeup queues the completion
// work, in the write's own system call), a check that the eventfd is
// readable when the write returns, and a wait of up to a second for it to
// turn readable. No timing decides "late": a kernel that signals from the
// wakeup has done so before write(2) returns. The wait runs out only on a
// kernel that drops the signal, once per process.
func EventfdSignalsDeferredWork() error {
	evfdProbe.mu.Lock()
	defer evfdProbe.mu.Unlock()
	if evfdProbe.done {
		return evfdProbe.err
	}
	err := probeEventfdDefer()
	if err == nil || errors.Is(err, ErrEventfdDeferTaskrun) || errors.Is(err, ErrEventfdDeferTaskrunLate) {
		evfdProbe.done, evfdProbe.err = true, err
	}
	return err
}

func probeEventfdDefer() error {
	defer lockThread()() // DEFER_TASKRUN: only the submitter may enter
	pr, err := newRingProbe(4, sys.SetupSingleIssuer|sys.SetupDeferTaskrun)
	if err != nil {
		return err
	}
	defer pr.close()
	r := pr.ring
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return fmt.Errorf("feature: eventfd probe: %w", err)
	}
	defer unix.Close(efd)
	fd32 := int32(efd)
	if _, err := register(r.Fd(), sys.RegisterEventfd, &fd32, 1); err != nil {
		return err
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return fmt.Errorf("feature: eventfd probe: %w", err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	buf := new([8]byte) // heap: never moves; kept alive to the last CQE
	cqes := make([]sys.CQE, 4)
	late := false
	for round := 0; round < 3; round++ {
		s, err := r.GetSQE()
		if err != nil {
			return err
		}
		if err := sqe.Read(s, p[0], buf[:1], -1); err != nil {
			return err
		}
		if _, err := r.Submit(); err != nil {
			return err
		}
		// Only the signal the write causes counts: the CQE of the last round
		// signalled the eventfd when it was posted.
		var cnt [8]byte
		_, _ = unix.Read(efd, cnt[:])
		if _, err := unix.Write(p[1], []byte{1}); err != nil {
			return fmt.Errorf("feature: eventfd probe: %w", err)
		}
		fds := []unix.PollFd{{Fd: int32(efd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0) // the wakeup ran inside the write
		if err == nil && n == 0 {
			late = true
			n, err = unix.Poll(fds, 1000)
		}
		if err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("feature: eventfd probe: %w", err)
		}
		// Drain the read so that Close has nothing in flight.
		if _, err := r.WaitCQE(); err != nil {
			return err
		}
		if k := r.Reap(cqes); k > 0 && cqes[0].Res < 0 {
			// A read the kernel cancelled (a cold io-wq, reg.StartIOWorkers)
			// completed before the write: the round proves nothing.
			return fmt.Errorf("feature: eventfd probe: the pipe read failed: %w", unix.Errno(-cqes[0].Res))
		}
		if n == 0 {
			return ErrEventfdDeferTaskrun
		}
		_, _ = unix.Read(efd, cnt[:])
	}
	runtime.KeepAlive(buf)
	if late {
		return ErrEventfdDeferTaskrunLate
	}
	return nil
}
