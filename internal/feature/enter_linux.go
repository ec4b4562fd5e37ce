//go:build linux

package feature

import (
	"fmt"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

var enterCache cache[sys.EnterFlags]

// EnterFlag reports whether io_uring_enter(2) accepts a flag (one bit), by
// entering a tiny ring with nothing to submit or wait for. The kernel
// rejects flags it does not know with EINVAL before anything else. How
// each flag is tried:
//   - GETEVENTS, SQ_WAKEUP, SQ_WAIT, NO_IOWAIT: alone (the SQPOLL ones are
//     ignored on a ring without SQPOLL); 0 = supported.
//   - EXT_ARG: with GETEVENTS and a zeroed io_uring_getevents_arg.
//   - ABS_TIMER: with EXT_ARG, GETEVENTS and a zero timespec; 0 or ETIME =
//     supported.
//   - REGISTERED_RING: on the ring's index after REGISTER_RING_FDS (both
//     5.18; EINVAL from the registration = unsupported).
//   - EXT_ARG_REG: with GETEVENTS and offset 0 of a wait region that was
//     never registered: a kernel that knows the flag answers EFAULT.
//   - any other bit: alone.
func EnterFlag(f sys.EnterFlags) error {
	if f == 0 || f&(f-1) != 0 {
		return fmt.Errorf("feature: EnterFlag(%v): want exactly one flag", f)
	}
	return enterCache.get(f, func() error {
		defer lockThread()()
		r, err := newProbe(1, sys.Params{})
		if err != nil {
			return notFinal(unwrapTransient(plainRingFailed(enterFeature(f), err)))
		}
		defer r.close()
		ok := []unix.Errno{0}
		switch f {
		case sys.EnterExtArg:
			_, err = sys.EnterArg(r.fd, 0, 0, sys.EnterGetEvents, &sys.GeteventsArg{})
		case sys.EnterAbsTimer:
			ts := new(sys.Timespec)
			r.pin.Pin(ts)
			_, err = sys.EnterArg(r.fd, 0, 0, sys.EnterGetEvents|sys.EnterAbsTimer, &sys.GeteventsArg{Ts: sys.PtrAddr(ts)})
			ok = append(ok, unix.ETIME)
		case sys.EnterRegisteredRing:
			idx, rerr := r.registerSelf()
			if rerr != nil {
				return registerPrereq(enterFeature(f), enterSince[f], "IORING_REGISTER_RING_FDS", rerr)
			}
			_, err = sys.Enter(idx, 0, 0, sys.EnterRegisteredRing)
		case sys.EnterExtArgReg:
			_, err = sys.EnterRegWait(r.fd, 0, 0, sys.EnterGetEvents, 0)
			if errnoOf(err) == unix.EFAULT {
				err = nil
			}
		default:
			_, err = sys.Enter(r.fd, 0, 0, f)
		}
		return answer(enterFeature(f), enterSince[f], err, ok...)
	})
}

// answer maps the result of a try-and-see call about feature (added in
// since): success or an errno in ok means supported; EINVAL unsupported
// (the kernel does not know the opcode or flag); EOPNOTSUPP unsupported,
// built out of this kernel (no version would help); anything else is a
// failed probe, not cached.
func answer(feature, since string, err error, ok ...unix.Errno) error {
	e := errnoOf(err)
	if err == nil {
		e = 0
	}
	for _, o := range ok {
		if e == o {
			return nil
		}
	}
	switch e {
	case unix.EINVAL:
		return unsupported(feature, since, "", err)
	case unix.EOPNOTSUPP:
		return unsupported(feature, "", "not built into this kernel", err)
	}
	if err == nil {
		return nil
	}
	return notFinal(fmt.Errorf("feature: probing %s: %w", feature, err))
}

// registerPrereq classifies the failure of a registration (what) that the
// probe of feature needs first: EINVAL means the kernel lacks it, and so
// the probed feature, which is never older (final); anything else is a
// failed probe.
func registerPrereq(feature, since, what string, err error) error {
	if errnoOf(err) == unix.EINVAL {
		return unsupported(feature, since, "needs "+what+", which the kernel rejects", err)
	}
	return notFinal(fmt.Errorf("feature: probing %s: %s: %w", feature, what, err))
}
