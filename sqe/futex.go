//go:build linux

package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// FutexPrivate marks a futex as private to the process (FUTEX2_PRIVATE); it
// is the only futex flag the builders take: the size is always 32 bits
// (FUTEX2_SIZE_U32), the only size io_uring futexes support.
const FutexPrivate uint32 = 128

const futex2SizeU32 = 0x02

// FutexWaitvMax is the most futexes one FutexWaitv may wait on.
const FutexWaitvMax = 128

// FutexBitsetAny matches every waiter (FUTEX_BITSET_MATCH_ANY).
const FutexBitsetAny uint32 = 0xffffffff

func checkFutex(fn string, futex *uint32, mask, flags uint32) error {
	switch {
	case futex == nil:
		return argErr(fn, "futex", "is nil")
	case mask == 0:
		return argErr(fn, "mask", "is 0 (use FutexBitsetAny)")
	}
	return checkFlags(fn, "flags", flags, FutexPrivate)
}

// FutexWait prepares futex_wait(2) (FUTEX2 interface) on *futex: it sleeps
// while *futex == val until a wake whose mask shares a bit with mask; the
// result is 0 (or EAGAIN when *futex != val at the start):
// io_uring_prep_futex_wait(3), IORING_OP_FUTEX_WAIT, Linux 6.7. flags: 0 or
// FutexPrivate. The kernel reads *futex until the CQE.
func FutexWait(s *sys.SQE, futex *uint32, val, mask, flags uint32) error {
	if err := checkFutex("FutexWait", futex, mask, flags); err != nil {
		return err
	}
	prep(s, sys.OpFutexWait, int(flags|futex2SizeU32), ptrOf(futex), 0, uint64(val))
	s.Addr3 = uint64(mask)
	return nil
}

// FutexWake prepares futex_wake(2) (FUTEX2 interface): wake up to n
// waiters on *futex whose mask shares a bit with mask; the result is the
// number woken: io_uring_prep_futex_wake(3), IORING_OP_FUTEX_WAKE, Linux
// 6.7. flags: 0 or FutexPrivate. The kernel uses the address of futex until
// the CQE.
func FutexWake(s *sys.SQE, futex *uint32, n, mask, flags uint32) error {
	if err := checkFutex("FutexWake", futex, mask, flags); err != nil {
		return err
	}
	prep(s, sys.OpFutexWake, int(flags|futex2SizeU32), ptrOf(futex), 0, uint64(n))
	s.Addr3 = uint64(mask)
	return nil
}

// FutexWaiter is struct futex_waitv, one entry of a FutexWaitv request.
// Set it with SetFutexWaiter.
type FutexWaiter struct {
	val   uint64
	uaddr uint64
	flags uint32
	_     uint32
}

// SetFutexWaiter points w at *futex, to wait while it equals val; flags: 0
// or FutexPrivate. The caller keeps *futex alive while w is in use.
func SetFutexWaiter(w *FutexWaiter, futex *uint32, val, flags uint32) error {
	if futex == nil {
		return argErr("SetFutexWaiter", "futex", "is nil")
	}
	if err := checkFlags("SetFutexWaiter", "flags", flags, FutexPrivate); err != nil {
		return err
	}
	*w = FutexWaiter{val: uint64(val), uaddr: ptrOf(futex), flags: flags | futex2SizeU32}
	return nil
}

// FutexWaitv prepares futex_waitv(2): sleep until any futex of w is woken
// (the result is its index) or does not hold its value (EAGAIN):
// io_uring_prep_futex_waitv(3), IORING_OP_FUTEX_WAITV, Linux 6.7. The
// kernel reads w and the futexes until the CQE.
func FutexWaitv(s *sys.SQE, w []FutexWaiter) error {
	if len(w) == 0 || len(w) > FutexWaitvMax {
		return argErr("FutexWaitv", "len(w)", "= "+strconv.Itoa(len(w))+" is not in [1, 128]")
	}
	prep(s, sys.OpFutexWaitv, 0, addrOf(w), uint32(len(w)), 0)
	return nil
}

// Waitid prepares waitid(2) for child id of idtype (unix.P_PID, P_PGID,
// P_ALL, P_PIDFD) with unix.WEXITED-style options, filling *info:
// io_uring_prep_waitid(3), IORING_OP_WAITID, Linux 6.7. The kernel writes
// *info until the CQE.
func Waitid(s *sys.SQE, idtype, id int, info *unix.Siginfo, options int) error {
	switch {
	case idtype < 0 || idtype > maxInt32:
		return argErr("Waitid", "idtype", "= "+strconv.Itoa(idtype)+" is out of range")
	case id < 0 || id > maxInt32:
		return argErr("Waitid", "id", "= "+strconv.Itoa(id)+" is out of range")
	case info == nil:
		return argErr("Waitid", "info", "is nil")
	case options < 0 || options > maxInt32:
		return argErr("Waitid", "options", "= "+strconv.Itoa(options)+" is out of range")
	}
	prep(s, sys.OpWaitid, id, 0, uint32(idtype), ptrOf(info))
	s.FileIndex = uint32(options)
	return nil
}
