//go:build linux

package sqe

import (
	"time"

	"github.com/pure-uring/uring/sys"
)

// Timeouts: every builder that takes a time.Duration stores it in a
// caller-owned *sys.Timespec and passes its address. The kernel reads the
// timespec when the request starts, which may be after Submit returns:
// keep *ts alive, pinned and unchanged until the CQE.
//
// Clocks: a timeout runs on CLOCK_MONOTONIC unless its flags name
// sys.TimeoutBoottime (CLOCK_BOOTTIME, which keeps counting through
// suspend) or sys.TimeoutRealtime (CLOCK_REALTIME, the wall clock), both
// Linux 5.15. Relative timeouts (Timeout, LinkTimeout) take a
// time.Duration from now; absolute ones (TimeoutAbs, LinkTimeoutAbs) take
// the clock's reading at which to fire, a time.Duration since that clock's
// zero, as clock_gettime(2) returns it (unix.ClockGettime then
// unix.Timespec.Nano); TimeoutAt takes a time.Time on the wall clock.

const (
	// timeoutFlags are what TIMEOUT takes besides TIMEOUT_ABS, which
	// TimeoutAbs sets (io_uring/timeout.c: __io_timeout_prep).
	timeoutFlags = sys.TimeoutBoottime | sys.TimeoutRealtime | sys.TimeoutETimeSuccess | sys.TimeoutMultishot
	// timeoutAbsFlags: the kernel refuses MULTISHOT with ABS.
	timeoutAbsFlags = sys.TimeoutBoottime | sys.TimeoutRealtime | sys.TimeoutETimeSuccess
	// timeoutUpdateFlags: an update (io_timeout_remove_prep) takes ABS and
	// nothing else besides the UPDATE bits; it keeps the timeout's clock.
	timeoutUpdateFlags = sys.TimeoutAbs
)

// Timeout prepares a timer that completes with ETIME after d, or with 0
// once count other CQEs have been posted (count 0: time only):
// io_uring_prep_timeout(3), IORING_OP_TIMEOUT, Linux 5.4. flags may hold
// sys.TimeoutBoottime or TimeoutRealtime (clock, 5.15),
// TimeoutETimeSuccess (5.16) and TimeoutMultishot (6.4: fire every d,
// count times, 0 = forever, F_MORE while armed). For an absolute deadline
// use TimeoutAbs or TimeoutAt. The kernel reads *ts, filled from d here,
// until the CQE.
func Timeout(s *sys.SQE, ts *sys.Timespec, d time.Duration, count uint32, flags uint32) error {
	if err := firstErr(checkTimeout("Timeout", ts, d), checkNotAbs("Timeout", flags), checkFlags("Timeout", "flags", flags, timeoutFlags), checkClock("Timeout", flags)); err != nil {
		return err
	}
	fillTimespec(ts, d)
	prep(s, sys.OpTimeout, -1, ptrOf(ts), 1, uint64(count))
	s.OpFlags = flags
	return nil
}

// TimeoutAbs prepares a timer that completes with ETIME when its clock
// reads at (an absolute deadline), or with 0 once count other CQEs have
// been posted: io_uring_prep_timeout(3) with IORING_TIMEOUT_ABS, Linux 5.4.
// The clock is CLOCK_MONOTONIC, the kernel's default, unless flags name
// sys.TimeoutBoottime or TimeoutRealtime (5.15); flags may also hold
// TimeoutETimeSuccess (5.16). at is the clock's reading, the time since
// its zero (boot for MONOTONIC and BOOTTIME, the Unix epoch for REALTIME):
// for example the Nano() of unix.ClockGettime(unix.CLOCK_MONOTONIC) plus a
// delay. A deadline already past fires at once. The kernel refuses
// TimeoutMultishot with an absolute time. The kernel reads *ts, filled
// from at here, until the CQE.
func TimeoutAbs(s *sys.SQE, ts *sys.Timespec, at time.Duration, count uint32, flags uint32) error {
	if err := firstErr(checkDeadline("TimeoutAbs", ts, at), checkAbsFlags("TimeoutAbs", flags, timeoutAbsFlags), checkClock("TimeoutAbs", flags)); err != nil {
		return err
	}
	fillTimespec(ts, at)
	prep(s, sys.OpTimeout, -1, ptrOf(ts), 1, uint64(count))
	s.OpFlags = flags | sys.TimeoutAbs
	return nil
}

// TimeoutAt prepares a timer that completes with ETIME at wall-clock time
// at (CLOCK_REALTIME, absolute), or with 0 once count CQEs have been
// posted: io_uring_prep_timeout(3) with IORING_TIMEOUT_ABS|REALTIME, Linux
// 5.15. It is TimeoutAbs on the wall clock; for CLOCK_MONOTONIC or
// CLOCK_BOOTTIME deadlines use TimeoutAbs. The kernel reads *ts, filled
// from at here, until the CQE.
func TimeoutAt(s *sys.SQE, ts *sys.Timespec, at time.Time, count uint32) error {
	if ts == nil {
		return argErr("TimeoutAt", "ts", "is nil")
	}
	ns := at.UnixNano()
	if ns < 0 {
		return argErr("TimeoutAt", "at", "is before 1970")
	}
	fillTimespec(ts, time.Duration(ns))
	prep(s, sys.OpTimeout, -1, ptrOf(ts), 1, uint64(count))
	s.OpFlags = sys.TimeoutAbs | sys.TimeoutRealtime
	return nil
}

// TimeoutRemove prepares the cancellation of the timeout whose user_data is
// userData (it completes with ECANCELED; this request with 0, ENOENT, or
// EALREADY when it is already firing): io_uring_prep_timeout_remove(3),
// IORING_OP_TIMEOUT_REMOVE, Linux 5.5. No memory is held.
func TimeoutRemove(s *sys.SQE, userData uint64) {
	prep(s, sys.OpTimeoutRemove, -1, userData, 0, 0)
}

// TimeoutUpdate prepares a change of the pending timeout whose user_data is
// userData to expire d from now: io_uring_prep_timeout_update(3),
// IORING_OP_TIMEOUT_REMOVE with IORING_TIMEOUT_UPDATE, Linux 5.11. flags
// may hold sys.TimeoutAbs only: d is then the absolute reading of the
// timeout's clock at which to fire (as for TimeoutAbs). The timeout keeps
// the clock it was armed with; the kernel refuses clock flags on an update
// (EINVAL), and so does this builder. The kernel reads *ts, filled from d,
// until the CQE.
func TimeoutUpdate(s *sys.SQE, ts *sys.Timespec, d time.Duration, userData uint64, flags uint32) error {
	return timeoutUpdate(s, "TimeoutUpdate", ts, d, userData, flags, sys.TimeoutUpdate)
}

// LinkTimeoutUpdate is TimeoutUpdate for a pending LinkTimeout:
// IORING_OP_TIMEOUT_REMOVE with IORING_TIMEOUT_UPDATE|IORING_LINK_TIMEOUT_UPDATE,
// Linux 5.15. flags and memory as for TimeoutUpdate.
func LinkTimeoutUpdate(s *sys.SQE, ts *sys.Timespec, d time.Duration, userData uint64, flags uint32) error {
	// The kernel takes the update path only with TIMEOUT_UPDATE; LINK_TIMEOUT_UPDATE
	// then selects the linked-timeout list.
	return timeoutUpdate(s, "LinkTimeoutUpdate", ts, d, userData, flags, sys.TimeoutUpdate|sys.LinkTimeoutUpdate)
}

func timeoutUpdate(s *sys.SQE, fn string, ts *sys.Timespec, d time.Duration, userData uint64, flags, kind uint32) error {
	if err := firstErr(checkTimeout(fn, ts, d), checkUpdateFlags(fn, flags)); err != nil {
		return err
	}
	fillTimespec(ts, d)
	prep(s, sys.OpTimeoutRemove, -1, userData, 0, ptrOf(ts))
	s.OpFlags = flags | kind
	return nil
}

// LinkTimeout prepares a timeout for the SQE linked before it (that SQE
// carries Link): if it has not completed after d it is cancelled
// (ECANCELED) and this completes with ETIME; otherwise this completes with
// ECANCELED: io_uring_prep_link_timeout(3), IORING_OP_LINK_TIMEOUT, Linux
// 5.5. flags: clock flags as for Timeout. The kernel reads *ts, filled from
// d, until the CQE.
func LinkTimeout(s *sys.SQE, ts *sys.Timespec, d time.Duration, flags uint32) error {
	if err := firstErr(checkTimeout("LinkTimeout", ts, d), checkNotAbs("LinkTimeout", flags), checkFlags("LinkTimeout", "flags", flags, sys.TimeoutClockMask), checkClock("LinkTimeout", flags)); err != nil {
		return err
	}
	fillTimespec(ts, d)
	prep(s, sys.OpLinkTimeout, -1, ptrOf(ts), 1, 0)
	s.OpFlags = flags
	return nil
}

// LinkTimeoutAbs is LinkTimeout with an absolute deadline: the linked SQE
// is cancelled if it has not completed when the clock reads at
// (IORING_OP_LINK_TIMEOUT with IORING_TIMEOUT_ABS, Linux 5.5). Clock and
// at as for TimeoutAbs: CLOCK_MONOTONIC unless flags name
// sys.TimeoutBoottime or TimeoutRealtime (5.15). The kernel reads *ts,
// filled from at, until the CQE.
func LinkTimeoutAbs(s *sys.SQE, ts *sys.Timespec, at time.Duration, flags uint32) error {
	if err := firstErr(checkDeadline("LinkTimeoutAbs", ts, at), checkAbsFlags("LinkTimeoutAbs", flags, sys.TimeoutClockMask), checkClock("LinkTimeoutAbs", flags)); err != nil {
		return err
	}
	fillTimespec(ts, at)
	prep(s, sys.OpLinkTimeout, -1, ptrOf(ts), 1, 0)
	s.OpFlags = flags | sys.TimeoutAbs
	return nil
}

// checkClock rejects flags that name two clocks at once.
func checkClock(fn string, flags uint32) error {
	if flags&sys.TimeoutClockMask == sys.TimeoutClockMask {
		return argErr(fn, "flags", "has both TimeoutBoottime and TimeoutRealtime")
	}
	return nil
}

// checkNotAbs points a relative builder given TimeoutAbs at the absolute one.
func checkNotAbs(fn string, flags uint32) error {
	if flags&sys.TimeoutAbs != 0 {
		return argErr(fn, "flags", "has TimeoutAbs: use "+fn+"Abs for an absolute deadline")
	}
	return nil
}

// checkAbsFlags allows known and TimeoutAbs (implied); multishot gets the
// kernel's reason.
func checkAbsFlags(fn string, flags, known uint32) error {
	if flags&sys.TimeoutMultishot != 0 {
		return argErr(fn, "flags", "has TimeoutMultishot, which the kernel takes only with a relative time")
	}
	return checkFlags(fn, "flags", flags&^sys.TimeoutAbs, known)
}

// checkUpdateFlags mirrors io_timeout_remove_prep: ABS is the only flag an
// update takes; clock flags are EINVAL (the timeout keeps its clock).
func checkUpdateFlags(fn string, flags uint32) error {
	if flags&sys.TimeoutClockMask != 0 {
		return argErr(fn, "flags", "has a clock flag (TimeoutBoottime or TimeoutRealtime): an update keeps the timeout's clock and the kernel refuses one (EINVAL)")
	}
	return checkFlags(fn, "flags", flags, timeoutUpdateFlags)
}

// checkDeadline is checkTimeout for an absolute reading at.
func checkDeadline(fn string, ts *sys.Timespec, at time.Duration) error {
	if ts == nil {
		return argErr(fn, "ts", "is nil")
	}
	if at < 0 {
		return argErr(fn, "at", "= "+at.String()+" is negative")
	}
	return nil
}
