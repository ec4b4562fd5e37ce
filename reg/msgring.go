//go:build linux

package reg

import "github.com/pure-uring/uring/sys"

// SendMsgRing posts a CQE with user_data = userData and res = res to the
// ring to, without a source ring (IORING_REGISTER_SEND_MSG_RING with fd -1,
// Linux 6.13): any thread can wake a ring's owner this way. flags are
// sys.MsgRingFlagsPass (then cqeFlags become the CQE's flags) or 0.
func SendMsgRing(to Target, userData uint64, res int32, flags uint32, cqeFlags uint32) error {
	fd := ringFd(to)
	if fd < 0 {
		return argErr("SendMsgRing", "to", "has no ring fd (a registered-only ring cannot be a target)")
	}
	if flags&^sys.MsgRingFlagsPass != 0 {
		return argErr("SendMsgRing", "flags", "has bits other than MsgRingFlagsPass: "+hex(uint64(flags)))
	}
	s := sys.SQE{Opcode: sys.OpMsgRing, Fd: int32(fd), Addr: sys.MsgData, Off: userData, Len: uint32(res), OpFlags: flags, FileIndex: cqeFlags}
	_, err := sys.Register(-1, sys.RegisterSendMsgRing, &s, 1)
	return wrap(sys.RegisterSendMsgRing, err)
}
