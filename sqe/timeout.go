//go:build linux

package sqe

import (
	"time"

	"github.com/pure-uring/uring/sys"
)

// Timeouts: every builder that takes a time.Duration stores it in a
// caller-owned *sys.Timespec and passes its address. The kernel reads the
// timespec when the request starts, which may be after Submit returns:
// keep *ts alive (and unchanged) until the CQE.

const timeoutFlags = sys.TimeoutBoottime | sys.TimeoutRealtime | sys.TimeoutETimeSuccess | sys.TimeoutMultishot

// Timeout prepares a timer that completes with ETIME after d, or with 0
// once count other CQEs have been posted (count 0: time only):
// io_uring_prep_timeout(3), IORING_OP_TIMEOUT, Linux 5.4. flags may hold
// sys.TimeoutBoottime or TimeoutRealtime (clock, 5.15),
// TimeoutETimeSuccess (5.16) and TimeoutMultishot (6.4: fire every d,
// count times, 0 = forever, F_MORE while armed). The kernel reads *ts,
// filled from d here, until the CQE.
func Timeout(s *sys.SQE, ts *sys.Timespec, d time.Duration, count uint32, flags uint32) error {
	if err := firstErr(checkTimeout("Timeout", ts, d), checkFlags("Timeout", "flags", flags, timeoutFlags), checkClock("Timeout", flags)); err != nil {
		return err
	}
	fillTimespec(ts, d)
	prep(s, sys.OpTimeout, -1, ptrOf(ts), 1, uint64(count))
	s.OpFlags = flags
	return nil
}

// TimeoutAt prepares a timer that completes with ETIME at wall-clock time
// at (CLOCK_REALTIME, absolute), or with 0 once count CQEs have been
// posted: io_uring_prep_timeout(3) with IORING_TIMEOUT_ABS|REALTIME, Linux
// 5.15. The kernel reads *ts, filled from at here, until the CQE.
func TimeoutAt(s *sys.SQE, ts *sys.Timespec, at time.Time, count uint32) error {
	if ts == nil {
		return argErr("TimeoutAt", "ts", "is nil")
	}
	ns := at.UnixNano()
	if ns < 0 {
		return argErr("TimeoutAt", "at", "is before 1970")
	}
	ts.Sec, ts.Nsec = ns/1e9, ns%1e9
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
// userData to expire d from now (flags: clock flags as for Timeout):
// io_uring_prep_timeout_update(3), IORING_OP_TIMEOUT_REMOVE with
// IORING_TIMEOUT_UPDATE, Linux 5.11. The kernel reads *ts, filled from d,
// until the CQE.
func TimeoutUpdate(s *sys.SQE, ts *sys.Timespec, d time.Duration, userData uint64, flags uint32) error {
	return timeoutUpdate(s, "TimeoutUpdate", ts, d, userData, flags, sys.TimeoutUpdate)
}

// LinkTimeoutUpdate is TimeoutUpdate for a pending LinkTimeout:
// IORING_OP_TIMEOUT_REMOVE with IORING_TIMEOUT_UPDATE|IORING_LINK_TIMEOUT_UPDATE,
// Linux 5.15.
// Memory as for TimeoutUpdate.
func LinkTimeoutUpdate(s *sys.SQE, ts *sys.Timespec, d time.Duration, userData uint64, flags uint32) error {
	// The kernel takes the update path only with TIMEOUT_UPDATE; LINK_TIMEOUT_UPDATE
	// then selects the linked-timeout list.
	return timeoutUpdate(s, "LinkTimeoutUpdate", ts, d, userData, flags, sys.TimeoutUpdate|sys.LinkTimeoutUpdate)
}

func timeoutUpdate(s *sys.SQE, fn string, ts *sys.Timespec, d time.Duration, userData uint64, flags, kind uint32) error {
	if err := firstErr(checkTimeout(fn, ts, d), checkFlags(fn, "flags", flags, sys.TimeoutClockMask), checkClock(fn, flags)); err != nil {
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
	if err := firstErr(checkTimeout("LinkTimeout", ts, d), checkFlags("LinkTimeout", "flags", flags, sys.TimeoutClockMask), checkClock("LinkTimeout", flags)); err != nil {
		return err
	}
	fillTimespec(ts, d)
	prep(s, sys.OpLinkTimeout, -1, ptrOf(ts), 1, 0)
	s.OpFlags = flags
	return nil
}

// checkClock rejects flags that name two clocks at once.
func checkClock(fn string, flags uint32) error {
	if flags&sys.TimeoutClockMask == sys.TimeoutClockMask {
		return argErr(fn, "flags", "has both TimeoutBoottime and TimeoutRealtime")
	}
	return nil
}
