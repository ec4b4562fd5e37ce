//go:build linux

package sqe

import "github.com/pure-uring/uring/sys"

// MsgRing prepares a message to the ring whose fd is ringFd: that ring gets
// a CQE with user_data data and result res; this request completes with 0
// (add SetSkipSuccess for no CQE here): io_uring_prep_msg_ring(3),
// IORING_OP_MSG_RING, Linux 5.18. No memory is held.
func MsgRing(s *sys.SQE, ringFd int, res int32, data uint64) error {
	if err := checkFd("MsgRing", "ringFd", ringFd); err != nil {
		return err
	}
	prep(s, sys.OpMsgRing, ringFd, sys.MsgData, uint32(res), data)
	return nil
}

// MsgRingCQEFlags is MsgRing whose target CQE also carries cqeFlags:
// io_uring_prep_msg_ring_cqe_flags(3), IORING_MSG_RING_FLAGS_PASS, Linux
// 6.3. No memory is held.
func MsgRingCQEFlags(s *sys.SQE, ringFd int, res int32, data uint64, cqeFlags uint32) error {
	if err := checkFd("MsgRingCQEFlags", "ringFd", ringFd); err != nil {
		return err
	}
	prep(s, sys.OpMsgRing, ringFd, sys.MsgData, uint32(res), data)
	s.OpFlags = sys.MsgRingFlagsPass
	s.FileIndex = cqeFlags
	return nil
}

// MsgRingFd prepares the passing of this ring's registered file in slot
// src into the fixed-file table of the ring whose fd is ringFd, at slot dst
// (AllocSlot: any free slot); that ring gets a CQE with user_data data and
// the slot as result (unless sys.MsgRingCQESkip): io_uring_prep_msg_ring_fd(3),
// IORING_OP_MSG_RING with IORING_MSG_SEND_FD, Linux 6.0. No memory is held.
func MsgRingFd(s *sys.SQE, ringFd int, src, dst Slot, data uint64, flags uint32) error {
	if err := firstErr(checkFd("MsgRingFd", "ringFd", ringFd), checkSlot("MsgRingFd", "src", src, false),
		checkSlot("MsgRingFd", "dst", dst, true), checkFlags("MsgRingFd", "flags", flags, sys.MsgRingCQESkip)); err != nil {
		return err
	}
	prep(s, sys.OpMsgRing, ringFd, sys.MsgSendFd, 0, data)
	s.Addr3 = uint64(src)
	s.FileIndex = targetIndex(dst)
	s.OpFlags = flags
	return nil
}
