//go:build linux

package sqe_test

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// clockUpdate is the refusal of a clock flag on a timeout update.
func clockUpdate(fn string) string {
	return "sqe: " + fn + ": flags has a clock flag (TimeoutBoottime or TimeoutRealtime): an update keeps the timeout's clock and the kernel refuses one (EINVAL)"
}

// timeoutClock is a clock a timeout can run on: its flag and its id for
// clock_gettime(2).
type timeoutClock struct {
	name  string
	flag  uint32
	id    int32
	since string // the release whose timeouts take the flag
}

var timeoutClocks = []timeoutClock{
	{"CLOCK_MONOTONIC", 0, unix.CLOCK_MONOTONIC, "5.4"},
	{"CLOCK_BOOTTIME", sys.TimeoutBoottime, unix.CLOCK_BOOTTIME, "5.15"},
	{"CLOCK_REALTIME", sys.TimeoutRealtime, unix.CLOCK_REALTIME, "5.15"},
}

// now reads clock c.
func (c timeoutClock) now(t *testing.T) time.Duration {
	t.Helper()
	var ts unix.Timespec
	require.NoError(t, unix.ClockGettime(c.id, &ts))
	return time.Duration(ts.Nano())
}

// needClock skips where the kernel lacks c's flag (a 0 ns timeout on c is
// EINVAL), failing on a kernel at c.since or newer; otherwise the timeout
// must fire with ETIME.
func needClock(t *testing.T, r *uring.Ring, c timeoutClock) {
	t.Helper()
	var ts sys.Timespec
	res := run(t, r, func(s *sys.SQE) error { return sqe.Timeout(s, &ts, 0, 0, c.flag) })
	if c.flag != 0 {
		kernelHas(t, res, "timeout clock flag for "+c.name, c.since, unix.EINVAL)
	}
	require.Equal(t, unix.ETIME, errno(res), "0 ns timeout on %s", c.name)
}

// needUpdate skips where the kernel lacks the update kind (flags), failing
// on a kernel at release or newer: an update of a timeout that does not
// exist must be ENOENT, not EINVAL.
func needUpdate(t *testing.T, r *uring.Ring, what string, flags uint32, release string) {
	t.Helper()
	var ts sys.Timespec
	res := run(t, r, func(s *sys.SQE) error {
		if flags&sys.LinkTimeoutUpdate != 0 {
			return sqe.LinkTimeoutUpdate(s, &ts, time.Second, 0xdead, 0)
		}
		return sqe.TimeoutUpdate(s, &ts, time.Second, 0xdead, 0)
	})
	kernelHas(t, res, what, release, unix.EINVAL)
	require.Equal(t, unix.ENOENT, errno(res), "%s of a timeout that does not exist", what)
}

// TestTimeoutAbsClocks arms an absolute timeout on each clock a little
// ahead of the clock's reading: it fires with ETIME, and not before the
// clock has reached the deadline. A deadline already past fires at once.
func TestTimeoutAbsClocks(t *testing.T) {
	r := newRing(t)
	for _, c := range timeoutClocks {
		t.Run(c.name, func(t *testing.T) {
			needClock(t, r, c)
			var ts sys.Timespec
			at := c.now(t) + 20*time.Millisecond
			res := run(t, r, func(s *sys.SQE) error { return sqe.TimeoutAbs(s, &ts, at, 0, c.flag) })
			require.Equal(t, unix.ETIME, errno(res))
			require.GreaterOrEqual(t, c.now(t), at, "fired before %s reached the deadline", c.name)

			// Past: one second before now.
			res = run(t, r, func(s *sys.SQE) error { return sqe.TimeoutAbs(s, &ts, c.now(t)-time.Second, 0, c.flag) })
			require.Equal(t, unix.ETIME, errno(res))

			// With ETIME_SUCCESS (5.16) the expiry still reads ETIME, but it
			// no longer fails the link: the linked NOP runs.
			t.Run("ETimeSuccess", func(t *testing.T) {
				res := run(t, r, func(s *sys.SQE) error {
					return sqe.TimeoutAbs(s, &ts, c.now(t), 0, c.flag|sys.TimeoutETimeSuccess)
				})
				kernelHas(t, res, "IORING_TIMEOUT_ETIME_SUCCESS", "5.16", unix.EINVAL)
				require.Equal(t, unix.ETIME, errno(res))
				prep(t, r, 20, func(s *sys.SQE) error {
					if err := sqe.TimeoutAbs(s, &ts, c.now(t), 0, c.flag|sys.TimeoutETimeSuccess); err != nil {
						return err
					}
					sqe.SetLink(s)
					return nil
				})
				prep(t, r, 21, func(s *sys.SQE) error { sqe.Nop(s); return nil })
				cs := byUD(submitWait(t, r, 2))
				require.Equal(t, unix.ETIME, errno(cs[20]))
				require.Equal(t, int32(0), cs[21].Res, "the linked NOP: %v", errno(cs[21]))
			})
			runtime.KeepAlive(&ts)
		})
	}
}

// TestTimeoutAbsCount: an absolute timeout with a count completes with 0
// when the count is reached first.
func TestTimeoutAbsCount(t *testing.T) {
	r := newRing(t)
	mono := timeoutClocks[0]
	var ts sys.Timespec
	prep(t, r, 2, func(s *sys.SQE) error { return sqe.TimeoutAbs(s, &ts, mono.now(t)+time.Hour, 1, 0) })
	prep(t, r, 3, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	cs := byUD(submitWait(t, r, 2))
	require.Equal(t, int32(0), cs[2].Res)
	require.Equal(t, int32(0), cs[3].Res)
	runtime.KeepAlive(&ts)
}

// TestLinkTimeoutAbs: a read on an empty pipe with an absolute link
// timeout on each clock is cancelled when the clock reaches the deadline.
func TestLinkTimeoutAbs(t *testing.T) {
	r := newRing(t)
	pr, _ := pipe(t)
	buf := make([]byte, 8)
	for _, c := range timeoutClocks {
		t.Run(c.name, func(t *testing.T) {
			needClock(t, r, c)
			var ts sys.Timespec
			at := c.now(t) + 10*time.Millisecond
			prep(t, r, 1, func(s *sys.SQE) error {
				if err := sqe.Read(s, pr, buf, sqe.CurrentPos); err != nil {
					return err
				}
				sqe.SetLink(s)
				return nil
			})
			prep(t, r, 2, func(s *sys.SQE) error { return sqe.LinkTimeoutAbs(s, &ts, at, c.flag) })
			cs := byUD(submitWait(t, r, 2))
			require.Equal(t, unix.ECANCELED, errno(cs[1]))
			require.Equal(t, unix.ETIME, errno(cs[2]))
			require.GreaterOrEqual(t, c.now(t), at)
			runtime.KeepAlive(&ts)
		})
	}
	runtime.KeepAlive(buf)
}

// TestTimeoutUpdateAbs: an update with TimeoutAbs moves a pending timeout
// to an absolute deadline on the clock the timeout was armed with (the
// kernel keeps it: a REALTIME reading given to a MONOTONIC timer would
// lie decades ahead and the test would hang until its guard).
func TestTimeoutUpdateAbs(t *testing.T) {
	r := newRing(t)
	needUpdate(t, r, "timeout update (IORING_TIMEOUT_UPDATE)", sys.TimeoutUpdate, "5.11")
	for _, c := range timeoutClocks {
		t.Run(c.name, func(t *testing.T) {
			needClock(t, r, c)
			var ts, ts2 sys.Timespec
			prep(t, r, 5, func(s *sys.SQE) error { return sqe.Timeout(s, &ts, time.Hour, 0, c.flag) })
			_, err := r.Submit()
			require.NoError(t, err)
			at := c.now(t) + 10*time.Millisecond
			prep(t, r, 6, func(s *sys.SQE) error { return sqe.TimeoutUpdate(s, &ts2, at, 5, sys.TimeoutAbs) })
			cs := byUD(submitWait(t, r, 2))
			require.Equal(t, int32(0), cs[6].Res, "update: %v", errno(cs[6]))
			require.Equal(t, unix.ETIME, errno(cs[5]))
			require.GreaterOrEqual(t, c.now(t), at)
			runtime.KeepAlive(&ts)
			runtime.KeepAlive(&ts2)
		})
	}
}

// TestLinkTimeoutUpdateAbs: the same for a pending link timeout.
func TestLinkTimeoutUpdateAbs(t *testing.T) {
	r := newRing(t)
	needUpdate(t, r, "link timeout update (IORING_LINK_TIMEOUT_UPDATE)", sys.LinkTimeoutUpdate, "5.15")
	pr, _ := pipe(t)
	buf := make([]byte, 8)
	for _, c := range timeoutClocks {
		t.Run(c.name, func(t *testing.T) {
			needClock(t, r, c)
			var ts, ts2 sys.Timespec
			prep(t, r, 12, func(s *sys.SQE) error {
				if err := sqe.Read(s, pr, buf, sqe.CurrentPos); err != nil {
					return err
				}
				sqe.SetLink(s)
				return nil
			})
			prep(t, r, 13, func(s *sys.SQE) error { return sqe.LinkTimeout(s, &ts, time.Hour, c.flag) })
			_, err := r.Submit()
			require.NoError(t, err)
			at := c.now(t) + 10*time.Millisecond
			prep(t, r, 14, func(s *sys.SQE) error { return sqe.LinkTimeoutUpdate(s, &ts2, at, 13, sys.TimeoutAbs) })
			cs := byUD(submitWait(t, r, 3))
			require.Equal(t, int32(0), cs[14].Res, "update: %v", errno(cs[14]))
			require.Equal(t, unix.ETIME, errno(cs[13]))
			require.Equal(t, unix.ECANCELED, errno(cs[12]))
			require.GreaterOrEqual(t, c.now(t), at)
			runtime.KeepAlive(&ts)
			runtime.KeepAlive(&ts2)
		})
	}
	runtime.KeepAlive(buf)
}

// TestTimeoutUpdateFlagsMatchKernel checks the update builders against the
// kernel's io_timeout_remove_prep, flag by flag: what the kernel takes the
// builder builds (an update of a timeout that does not exist is then
// ENOENT), and what the kernel refuses with EINVAL — a hand-built SQE shows
// it — the builder refuses before submit with an *sqe.ArgError naming
// "flags".
func TestTimeoutUpdateFlagsMatchKernel(t *testing.T) {
	r := newRing(t)
	needUpdate(t, r, "timeout update (IORING_TIMEOUT_UPDATE)", sys.TimeoutUpdate, "5.11")
	needUpdate(t, r, "link timeout update (IORING_LINK_TIMEOUT_UPDATE)", sys.LinkTimeoutUpdate, "5.15")
	var ts sys.Timespec
	for _, kind := range []struct {
		name  string
		bits  uint32
		build func(s *sys.SQE, ts *sys.Timespec, ud uint64, flags uint32) error
	}{
		{"TimeoutUpdate", sys.TimeoutUpdate, func(s *sys.SQE, ts *sys.Timespec, ud uint64, flags uint32) error {
			return sqe.TimeoutUpdate(s, ts, time.Second, ud, flags)
		}},
		{"LinkTimeoutUpdate", sys.TimeoutUpdate | sys.LinkTimeoutUpdate, func(s *sys.SQE, ts *sys.Timespec, ud uint64, flags uint32) error {
			return sqe.LinkTimeoutUpdate(s, ts, time.Second, ud, flags)
		}},
	} {
		for _, f := range []struct {
			name   string
			flags  uint32
			kernel bool // the kernel takes it on an update
		}{
			{"none", 0, true},
			{"TimeoutAbs", sys.TimeoutAbs, true},
			{"TimeoutBoottime", sys.TimeoutBoottime, false},
			{"TimeoutRealtime", sys.TimeoutRealtime, false},
			{"TimeoutAbs|TimeoutBoottime", sys.TimeoutAbs | sys.TimeoutBoottime, false},
			{"TimeoutBoottime|TimeoutRealtime", sys.TimeoutClockMask, false},
			{"TimeoutETimeSuccess", sys.TimeoutETimeSuccess, false},
			{"TimeoutMultishot", sys.TimeoutMultishot, false},
		} {
			t.Run(kind.name+"/"+f.name, func(t *testing.T) {
				// The kernel's answer to the raw SQE (no timeout 0xdead exists).
				res := run(t, r, func(s *sys.SQE) error {
					*s = sys.SQE{Opcode: sys.OpTimeoutRemove, Fd: -1, Addr: 0xdead, Off: sys.PtrAddr(&ts), OpFlags: kind.bits | f.flags}
					return nil
				})
				var s sys.SQE
				err := kind.build(&s, &ts, 0xdead, f.flags)
				if f.kernel {
					require.Equal(t, unix.ENOENT, errno(res), "the kernel takes %s", f.name)
					require.NoError(t, err)
					require.Equal(t, kind.bits|f.flags, s.OpFlags)
					res = run(t, r, func(q *sys.SQE) error { return kind.build(q, &ts, 0xdead, f.flags) })
					require.Equal(t, unix.ENOENT, errno(res))
					return
				}
				require.Equal(t, unix.EINVAL, errno(res), "the kernel refuses %s", f.name)
				var ae *sqe.ArgError
				require.ErrorAs(t, err, &ae)
				require.Equal(t, kind.name, ae.Func)
				require.Equal(t, "flags", ae.Arg)
				require.True(t, errors.Is(err, unix.EINVAL))
				require.Equal(t, sys.SQE{}, s, "a refused builder leaves the SQE alone")
			})
		}
	}
	runtime.KeepAlive(&ts)
}
