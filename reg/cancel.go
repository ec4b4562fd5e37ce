//go:build linux

package reg

import (
	"time"

	"github.com/pure-uring/uring/sys"
)

// Cancel says which requests SyncCancel cancels. By default it matches the
// one request whose user_data is UserData. Flags adds sys.AsyncCancel*
// bits: AsyncCancelAll (every match), AsyncCancelAny (every request),
// AsyncCancelFd (match on Fd; with AsyncCancelFdFixed Fd is a slot),
// AsyncCancelOp (match on Op), AsyncCancelUserData (match on UserData too,
// with Fd or Op).
type Cancel struct {
	UserData uint64
	Fd       int
	Op       sys.Op
	Flags    uint32
	Timeout  time.Duration // how long to wait for the matches to finish; 0 = no limit
}

// SyncCancel cancels requests and waits until they are done
// (IORING_REGISTER_SYNC_CANCEL, Linux 6.0). Their CQEs (ECANCELED) still
// arrive in the CQ. It returns ENOENT (as *Error) when nothing matched.
func SyncCancel(t Target, c Cancel) error {
	sc := sys.SyncCancelReg{Addr: c.UserData, Fd: int32(c.Fd), Flags: c.Flags, Opcode: c.Op, Timeout: sys.Timespec{Sec: -1, Nsec: -1}}
	if c.Timeout < 0 {
		return argErr("SyncCancel", "Timeout", "= "+c.Timeout.String()+" is negative")
	}
	if c.Timeout > 0 {
		sc.Timeout = sys.Timespec{Sec: int64(c.Timeout / time.Second), Nsec: int64(c.Timeout % time.Second)}
	}
	_, err := register(t, sys.RegisterSyncCancel, &sc, 1)
	return err
}
