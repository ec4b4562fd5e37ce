package uring

import (
	"errors"
	"strconv"
	"syscall"
	"time"

	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sys"
)

// SetIOWait chooses whether the ring's waits for completions count as
// iowait: io_uring_set_iowait(3) (liburing 2.10). With on false every
// wait from then on passes IORING_ENTER_NO_IOWAIT (Linux 6.15,
// IORING_FEAT_NO_IOWAIT): the CPU time the thread sleeps in the wait is
// idle, not iowait, in /proc/stat, and cpufreq governors that boost on
// iowait leave the CPU alone. A ring starts with on true, the kernel's
// default. On kernels without the flag it returns an *UnsupportedError
// naming 6.15. Safe to call from any goroutine; a wait already in the
// kernel keeps the setting it entered with.
func (r *Ring) SetIOWait(on bool) error {
	if r.closed.Load() {
		return ErrClosed
	}
	if r.params.Features&sys.FeatNoIOWait == 0 {
		if err := feature.Feature(sys.FeatNoIOWait); err != nil {
			return err
		}
		return ErrUnsupported
	}
	if on {
		r.noIOWait.Store(0)
	} else {
		r.noIOWait.Store(uint32(sys.EnterNoIOWait))
	}
	return nil
}

// WaitCQEsSigmask is WaitCQEsTimeout with the signal mask mask in force
// while the thread sleeps in the kernel, as pselect(2) does:
// io_uring_wait_cqes(3) with a sigmask (IORING_ENTER_EXT_ARG, Linux 5.11).
// A program that blocks a signal everywhere else and leaves it out of
// mask gets it delivered, and the wait ended, only here: the wait then
// returns an error that errors.Is syscall.EINTR (not retried, unlike the
// waits without a mask), unless n CQEs are ready. d < 0 waits without a
// timeout; d == 0 does not block (and mask does not matter). The Go
// runtime's own signal, SIGURG, ends such a wait too unless mask holds
// it; Close wakes a wait with a CQE where the kernel can post one from
// outside (6.13, or MSG_RING from 5.18), else with SIGURG, so a mask with
// SIGURG on an older kernel leaves Close waiting for the wait's timeout.
// It submits as WaitCQE does: the SQEs GetSQE handed out go in with the
// io_uring_enter it sleeps in, so not with d zero or n CQEs ready, and
// never on SQPOLL rings.
func (r *Ring) WaitCQEsSigmask(n uint32, d time.Duration, mask sys.Sigset) (*sys.CQE, error) {
	if r.closed.Load() {
		return nil, ErrClosed
	}
	if d == 0 {
		return r.wait(n, 0, 0)
	}
	if r.params.Features&sys.FeatExtArg == 0 {
		return nil, extArgError()
	}
	n = max(n, 1)
	var deadline time.Time
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	for {
		c, ready := r.peek()
		if c != nil && ready >= n {
			return c, nil
		}
		toSubmit := uint32(0)
		if r.flags&sys.SetupSQPoll == 0 {
			toSubmit = r.flushSQ()
		}
		left := time.Duration(-1)
		if d > 0 {
			if left = time.Until(deadline); left <= 0 {
				if c != nil {
					return c, nil
				}
				return nil, ErrTimeout
			}
		}
		_, err := r.enterSigmask(toSubmit, n, left, mask)
		if r.closed.Load() {
			return nil, ErrClosed
		}
		switch {
		case err == nil:
		case errors.Is(err, errETIME):
			if c, _ := r.peek(); c != nil {
				return c, nil
			}
			return nil, ErrTimeout
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EBUSY):
			if c, _ := r.peek(); c != nil {
				return c, nil
			}
		default:
			// EINTR included: a signal the mask let through is the caller's.
			if c, ready := r.peek(); c != nil && ready >= n {
				return c, nil
			}
			return nil, err
		}
	}
}

// SubmitAndWaitSigmask submits and waits up to d (d < 0: no timeout) for n
// CQEs with the signal mask mask in force during the wait, as
// WaitCQEsSigmask: io_uring_submit_and_wait_timeout(3) with a sigmask. It
// returns how many SQEs were submitted; ErrTimeout when fewer than n CQEs
// arrived, an error matching syscall.EINTR when a signal ended the wait.
func (r *Ring) SubmitAndWaitSigmask(n uint32, d time.Duration, mask sys.Sigset) (int, error) {
	submitted, err := r.Submit()
	if err != nil {
		return submitted, err
	}
	_, err = r.WaitCQEsSigmask(n, d, mask)
	return submitted, err
}

// enterSigmask waits with IORING_ENTER_EXT_ARG, the signal mask and, for
// left >= 0, a timeout; the mask, timespec and argument live in the Ring.
func (r *Ring) enterSigmask(toSubmit, n uint32, left time.Duration, mask sys.Sigset) (int, error) {
	l := r.life
	if err := r.enterOnThread(r.enterFlags); err != nil {
		return 0, err
	}
	defer enterDone(r.enterFlags)
	t, ok := l.beginEnterWait(n)
	if !ok {
		return 0, ErrClosed
	}
	r.waitMask = mask
	r.waitArg = sys.GeteventsArg{Sigmask: sys.PtrAddr(&r.waitMask), SigmaskSz: sys.SigsetSize}
	if left >= 0 {
		r.waitTs = sys.Timespec{Sec: int64(left / time.Second), Nsec: int64(left % time.Second)}
		r.waitArg.Ts = sys.PtrAddr(&r.waitTs)
	}
	got, err := sys.EnterArg(r.enterFd, toSubmit, n, r.enterFlags|sys.EnterGetEvents|sys.EnterFlags(r.noIOWait.Load()), &r.waitArg)
	l.endEnterWait(t)
	return got, r.issuerError(err)
}

// SubmitAndWaitReg submits what GetSQE handed out (also when n CQEs are
// ready already, and on SQPOLL rings, as Submit does) and waits for n CQEs
// with the wait arguments (timeout, minimum wait, signal mask) in slot
// index of the ring's registered wait region (reg.RegisterWaitRegion),
// which the kernel reads in place instead of copying them in:
// io_uring_submit_and_wait_reg(3) (liburing 2.9), IORING_ENTER_EXT_ARG_REG,
// Linux 6.13. It returns the first CQE; ErrTimeout when the slot's timeout
// (sys.RegWaitTS in its flags) passed with none ready; with a minimum wait
// in the slot it may return after that with fewer than n. A slot outside
// the region, or a ring without one, is the kernel's EFAULT (and the
// kernel reads the region's last slot as slot 0, which is why
// reg.Region leaves it out). A signal the
// slot's mask lets through ends the wait with an error matching
// syscall.EINTR (not retried: the slot's timeout would start over). On
// kernels before 6.13 it returns an *UnsupportedError naming 6.13.
func (r *Ring) SubmitAndWaitReg(n uint32, index int) (*sys.CQE, error) {
	size := int64(sys.SizeOf[sys.RegWait]())
	if index < 0 || int64(index)*size > 1<<32-1-size {
		return nil, &OptionError{Option: "index", Reason: "= " + strconv.Itoa(index) + " is not a wait slot (0 .. 2^32/64)"}
	}
	if r.closed.Load() {
		return nil, ErrClosed
	}
	if r.params.Features&sys.FeatExtArg == 0 {
		return nil, extArgError()
	}
	off := uint32(int64(index) * size)
	n = max(n, 1)
	if r.flags&sys.SetupSQPoll != 0 {
		// The SQ thread submits what is published: publish, and wake it.
		if _, err := r.Submit(); err != nil {
			return nil, err
		}
	}
	for {
		toSubmit := uint32(0)
		if r.flags&sys.SetupSQPoll == 0 {
			toSubmit = r.flushSQ()
		}
		c, ready := r.peek()
		if c != nil && ready >= n {
			if toSubmit > 0 {
				// Nothing to wait for, something to submit.
				if _, err := r.Submit(); err != nil {
					return nil, err
				}
			}
			return c, nil
		}
		_, err := r.enterReg(toSubmit, n, off)
		if r.closed.Load() {
			return nil, ErrClosed
		}
		switch {
		case err == nil:
			// n arrived, or the slot's minimum wait passed with fewer.
			if c, _ := r.peek(); c != nil {
				return c, nil
			}
		case errors.Is(err, errETIME):
			if c, _ := r.peek(); c != nil {
				return c, nil
			}
			return nil, ErrTimeout
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EBUSY):
			if c, _ := r.peek(); c != nil {
				return c, nil
			}
		case errors.Is(err, syscall.EINVAL):
			if ue := feature.AsUnsupported(feature.EnterFlag(sys.EnterExtArgReg)); ue != nil {
				u := *ue
				u.Err = err
				return nil, &u
			}
			return nil, err
		default:
			if c, ready := r.peek(); c != nil && ready >= n {
				return c, nil
			}
			return nil, err
		}
	}
}

// enterReg waits with the registered wait slot at byte offset off.
func (r *Ring) enterReg(toSubmit, n, off uint32) (int, error) {
	l := r.life
	if err := r.enterOnThread(r.enterFlags); err != nil {
		return 0, err
	}
	defer enterDone(r.enterFlags)
	t, ok := l.beginEnterWait(n)
	if !ok {
		return 0, ErrClosed
	}
	got, err := sys.EnterRegWait(r.enterFd, toSubmit, n, r.enterFlags|sys.EnterGetEvents|sys.EnterFlags(r.noIOWait.Load()), off)
	l.endEnterWait(t)
	return got, r.issuerError(err)
}
