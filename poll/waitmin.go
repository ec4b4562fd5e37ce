//go:build linux

package poll

import (
	"errors"
	"syscall"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// waitMin waits for WaitBatch CQEs with IORING_FEAT_MIN_TIMEOUT: after
// MinWait the kernel returns as soon as one is ready. It makes the enter
// itself because Ring.WaitCQEsTimeout re-enters when the kernel returns
// early with fewer than n CQEs (so it only returns at n or at the deadline).
// The timespec and argument live in the Loop, so nothing escapes per wait.
func (l *Loop) waitMin(timeout time.Duration) error {
	if l.ring.CQReady() > 0 {
		return nil
	}
	if l.needSubmit() {
		l.submit() // the Ring publishes the SQ tail only through Submit
	}
	l.waitTs = sys.Timespec{Sec: int64(timeout / time.Second), Nsec: int64(timeout % time.Second)}
	l.waitArg = sys.GeteventsArg{Ts: sys.PtrAddr(&l.waitTs), MinWaitUsec: uint32(min(l.cfg.MinWait.Microseconds(), 1<<32-1))}
	_, err := sys.EnterArg(l.ring.Fd(), 0, l.cfg.WaitBatch, sys.EnterGetEvents, &l.waitArg)
	switch {
	case err == nil, errors.Is(err, syscall.EINTR):
		return nil // the loop reaps and comes back
	case errors.Is(err, syscall.ETIME):
		return uring.ErrTimeout
	}
	return err
}
