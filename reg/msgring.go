//go:build linux

package reg

import (
	"errors"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// SendMsgRing posts a CQE with user_data = userData and res = res to the
// ring to, without a source ring (IORING_REGISTER_SEND_MSG_RING with fd -1,
// Linux 6.13; liburing's io_uring_register_sync_msg): any thread can wake a
// ring's owner this way. flags are sys.MsgRingFlagsPass (then cqeFlags
// become the CQE's flags) or 0. A *uring.Ring target goes through its
// PostCQE, and any other GuardedTarget (a type that embeds a *uring.Ring,
// say) through its UseTarget: either keeps the ring's fd from being closed
// and its number reused under the call. A bare fd target is the caller's
// to keep open.
func SendMsgRing(to Target, userData uint64, res int32, flags uint32, cqeFlags uint32) error {
	if flags&^sys.MsgRingFlagsPass != 0 {
		return argErr("SendMsgRing", "flags", "has bits other than MsgRingFlagsPass: "+hex(uint64(flags)))
	}
	switch t := to.(type) {
	case *uring.Ring:
		err := t.PostCQE(userData, res, flags, cqeFlags)
		var ue *uring.UnsupportedError
		if err == nil || errors.As(err, &ue) || errors.Is(err, uring.ErrClosed) {
			return err
		}
		return wrap(sys.RegisterSendMsgRing, err)
	case GuardedTarget:
		return t.UseTarget(func(fd int, flag sys.RegisterOp) error {
			if flag != 0 {
				fd = -1 // a registered index: no fd to name the ring by
			}
			return sendMsgRing(fd, userData, res, flags, cqeFlags)
		})
	}
	return sendMsgRing(ringFd(to), userData, res, flags, cqeFlags)
}

// sendMsgRing posts the CQE into the ring fd, which the caller keeps open.
func sendMsgRing(fd int, userData uint64, res int32, flags uint32, cqeFlags uint32) error {
	if fd < 0 {
		return argErr("SendMsgRing", "to", "has no ring fd (a registered-only ring cannot be a target)")
	}
	var msg sys.SQE
	var err error
	if flags&sys.MsgRingFlagsPass != 0 {
		err = sqe.MsgRingCQEFlags(&msg, fd, res, userData, cqeFlags)
	} else {
		err = sqe.MsgRing(&msg, fd, res, userData)
	}
	if err != nil {
		return err
	}
	return wrap(sys.RegisterSendMsgRing, sys.SendMsgRing(fd, &msg))
}
