//go:build linux

package uring

import (
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// msgRing fills msg with a MSG_RING to the ring fd of userData and res,
// passing cqeFlags when msgFlags is MsgRingFlagsPass.
func msgRing(msg *sys.SQE, fd int, userData uint64, res int32, msgFlags, cqeFlags uint32) error {
	if msgFlags&sys.MsgRingFlagsPass != 0 {
		return sqe.MsgRingCQEFlags(msg, fd, res, userData, cqeFlags)
	}
	return sqe.MsgRing(msg, fd, res, userData)
}
