//go:build linux

package sqe

import (
	"github.com/pure-uring/uring/sys"
)

// SendSetAddr gives the Send or SendZC prepared in s the destination *sa
// (length sizeof(T)), as sendto(2) takes one, for an unconnected datagram
// socket: io_uring_prep_send_set_addr(3), IORING_OP_SEND and
// IORING_OP_SEND_ZC, Linux 6.0. It is a modifier: call it after the
// builder. Any other prepared opcode is an *ArgError and s is left as it
// was. The kernel reads *sa until the CQE (for SEND_ZC, the first one).
func SendSetAddr[T Sockaddr](s *sys.SQE, sa *T) error {
	const fn = "SendSetAddr"
	if sa == nil {
		return argErr(fn, "sa", "is nil")
	}
	if s.Opcode != sys.OpSend && s.Opcode != sys.OpSendZC {
		return argErr(fn, "s", "holds "+s.Opcode.String()+": only SEND and SEND_ZC take a destination")
	}
	s.Off = ptrOf(sa)                                           // addr2
	s.FileIndex = s.FileIndex&^0xffff | uint32(sys.SizeOf[T]()) // addr_len: the low 16 bits (little-endian)
	return nil
}

// SendZCTo is SendZC to the destination *sa (length sizeof(T)) on an
// unconnected datagram socket: io_uring_prep_send_zc(3) followed by
// io_uring_prep_send_set_addr(3), IORING_OP_SEND_ZC, Linux 6.0. It posts
// the byte count (with F_MORE) and then the F_NOTIF CQE; the kernel reads
// buf until the F_NOTIF CQE and *sa until the first.
func SendZCTo[T Sockaddr](s *sys.SQE, fd int, buf []byte, flags int, zc uint16, sa *T) error {
	const fn = "SendZCTo"
	if err := checkFlags32(fn, "flags", flags); err != nil {
		return err
	}
	if err := firstErr(checkSR(fn, fd, len(buf)), checkFlags(fn, "zc", uint32(zc), uint32(zcFlags))); err != nil {
		return err
	}
	if sa == nil {
		return argErr(fn, "sa", "is nil")
	}
	prep(s, sys.OpSendZC, fd, addrOf(buf), uint32(len(buf)), ptrOf(sa))
	s.OpFlags = uint32(flags)
	s.Ioprio = zc
	s.FileIndex = uint32(sys.SizeOf[T]())
	return nil
}
