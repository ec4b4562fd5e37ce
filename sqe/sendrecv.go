//go:build linux

package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// Send and receive flags: the flags argument of these builders is the
// MSG_* flags of send(2)/recv(2); the op's own flags (multishot, bundle,
// zero-copy) go in the SQE's ioprio field and are set by the builder.

func checkSR(fn string, fd, n int) error {
	return firstErr(checkFd(fn, "fd", fd), checkLen32(fn, "len(buf)", n))
}

// Send prepares send(2) of buf on socket fd: io_uring_prep_send(3),
// IORING_OP_SEND, Linux 5.6. The result is the byte count. The kernel reads
// buf until the CQE.
func Send(s *sys.SQE, fd int, buf []byte, flags int) error {
	if err := checkFlags32("Send", "flags", flags); err != nil {
		return err
	}
	if err := checkSR("Send", fd, len(buf)); err != nil {
		return err
	}
	prep(s, sys.OpSend, fd, addrOf(buf), uint32(len(buf)), 0)
	s.OpFlags = uint32(flags)
	return nil
}

// SendTo prepares sendto(2) of buf on socket fd to *sa (length sizeof(T)):
// io_uring_prep_sendto(3), IORING_OP_SEND, Linux 6.0. The kernel reads buf
// and *sa until the CQE.
func SendTo[T Sockaddr](s *sys.SQE, fd int, buf []byte, flags int, sa *T) error {
	if err := checkFlags32("SendTo", "flags", flags); err != nil {
		return err
	}
	if err := checkSR("SendTo", fd, len(buf)); err != nil {
		return err
	}
	if sa == nil {
		return argErr("SendTo", "sa", "is nil")
	}
	prep(s, sys.OpSend, fd, addrOf(buf), uint32(len(buf)), ptrOf(sa))
	s.OpFlags = uint32(flags)
	s.FileIndex = uint32(sys.SizeOf[T]()) // addr_len: the low 16 bits (little-endian)
	return nil
}

// SendBundle prepares a send of as many buffers of provided-buffer group
// group as are queued, up to n bytes (0: no limit), in one request:
// io_uring_prep_send_bundle(3), IORING_OP_SEND with IORING_RECVSEND_BUNDLE,
// Linux 6.10 (FEAT_RECVSEND_BUNDLE). The result is the byte count; the CQE
// names the first buffer. Only the provided buffers are held.
func SendBundle(s *sys.SQE, fd int, n uint32, flags int, group uint16) error {
	if err := checkFlags32("SendBundle", "flags", flags); err != nil {
		return err
	}
	if err := checkFd("SendBundle", "fd", fd); err != nil {
		return err
	}
	prep(s, sys.OpSend, fd, 0, n, 0)
	s.OpFlags = uint32(flags)
	s.Ioprio = sys.RecvsendBundle
	s.Flags = sys.SQEBufferSelect
	s.BufIndex = group
	return nil
}

const zcFlags = sys.RecvsendPollFirst | sys.SendZCReportUsage

// SendZC prepares a zero-copy send(2) of buf with zc (sys.RecvsendPollFirst,
// sys.SendZCReportUsage): io_uring_prep_send_zc(3), IORING_OP_SEND_ZC,
// Linux 6.0. It posts two CQEs: the byte count (with F_MORE), then a
// notification (F_NOTIF) once the kernel no longer reads buf. The kernel
// reads buf until the F_NOTIF CQE.
func SendZC(s *sys.SQE, fd int, buf []byte, flags int, zc uint16) error {
	if err := checkFlags32("SendZC", "flags", flags); err != nil {
		return err
	}
	if err := firstErr(checkSR("SendZC", fd, len(buf)), checkFlags("SendZC", "zc", uint32(zc), uint32(zcFlags))); err != nil {
		return err
	}
	prep(s, sys.OpSendZC, fd, addrOf(buf), uint32(len(buf)), 0)
	s.OpFlags = uint32(flags)
	s.Ioprio = zc
	return nil
}

// SendZCFixed is SendZC from registered buffer bufIndex, inside which buf
// lies: io_uring_prep_send_zc_fixed(3), Linux 6.0. Memory as for SendZC.
func SendZCFixed(s *sys.SQE, fd int, buf []byte, flags int, zc uint16, bufIndex uint16) error {
	if err := checkFlags32("SendZCFixed", "flags", flags); err != nil {
		return err
	}
	if err := firstErr(checkSR("SendZCFixed", fd, len(buf)), checkFlags("SendZCFixed", "zc", uint32(zc), uint32(zcFlags))); err != nil {
		return err
	}
	prep(s, sys.OpSendZC, fd, addrOf(buf), uint32(len(buf)), 0)
	s.OpFlags = uint32(flags)
	s.Ioprio = zc | sys.RecvsendFixedBuf
	s.BufIndex = bufIndex
	return nil
}

// Recv prepares recv(2) into buf from socket fd: io_uring_prep_recv(3),
// IORING_OP_RECV, Linux 5.6. The result is the byte count (0: EOF). The
// kernel writes buf until the CQE. With SetBufferSelect pass a nil buf.
func Recv(s *sys.SQE, fd int, buf []byte, flags int) error {
	if err := checkFlags32("Recv", "flags", flags); err != nil {
		return err
	}
	if err := checkSR("Recv", fd, len(buf)); err != nil {
		return err
	}
	prep(s, sys.OpRecv, fd, addrOf(buf), uint32(len(buf)), 0)
	s.OpFlags = uint32(flags)
	return nil
}

// RecvMultishot prepares a receive that stays armed, posting one CQE per
// arrival into a buffer of provided-buffer group group (F_BUFFER, and F_MORE
// while armed): io_uring_prep_recv_multishot(3), IORING_OP_RECV with
// IORING_RECV_MULTISHOT, Linux 6.0. Only the provided buffers are held.
func RecvMultishot(s *sys.SQE, fd int, flags int, group uint16) error {
	if err := checkFlags32("RecvMultishot", "flags", flags); err != nil {
		return err
	}
	if err := checkFd("RecvMultishot", "fd", fd); err != nil {
		return err
	}
	prep(s, sys.OpRecv, fd, 0, 0, 0)
	s.OpFlags = uint32(flags)
	s.Ioprio = sys.RecvMultishot
	s.Flags = sys.SQEBufferSelect
	s.BufIndex = group
	return nil
}

// RecvBundle prepares a receive that fills as many buffers of provided-
// buffer *ring* group group as the data needs, in one CQE naming the first
// buffer (IORING_RECVSEND_BUNDLE, Linux 6.10, FEAT_RECVSEND_BUNDLE); with
// multishot it stays armed (IORING_RECV_MULTISHOT). Only the provided
// buffers are held.
func RecvBundle(s *sys.SQE, fd int, flags int, group uint16, multishot bool) error {
	if err := checkFlags32("RecvBundle", "flags", flags); err != nil {
		return err
	}
	if err := checkFd("RecvBundle", "fd", fd); err != nil {
		return err
	}
	prep(s, sys.OpRecv, fd, 0, 0, 0)
	s.OpFlags = uint32(flags)
	s.Ioprio = sys.RecvsendBundle
	if multishot {
		s.Ioprio |= sys.RecvMultishot
	}
	s.Flags = sys.SQEBufferSelect
	s.BufIndex = group
	return nil
}

func checkMsg(fn string, fd int, msg *unix.Msghdr) error {
	if err := checkFd(fn, "fd", fd); err != nil {
		return err
	}
	if msg == nil {
		return argErr(fn, "msg", "is nil")
	}
	if msg.Iovlen > IOVMax {
		return argErr(fn, "msg.Iovlen", "= "+strconv.FormatUint(uint64(msg.Iovlen), 10)+" exceeds IOV_MAX (1024)")
	}
	return nil
}

func msgOp(s *sys.SQE, op sys.Op, fd int, msg *unix.Msghdr, flags int) {
	prep(s, op, fd, ptrOf(msg), 1, 0)
	s.OpFlags = uint32(flags)
}

// Sendmsg prepares sendmsg(2) of *msg on socket fd:
// io_uring_prep_sendmsg(3), IORING_OP_SENDMSG, Linux 5.3. The kernel reads
// *msg and everything it points to (iovecs, buffers, name, control) until
// the CQE.
func Sendmsg(s *sys.SQE, fd int, msg *unix.Msghdr, flags int) error {
	if err := checkFlags32("Sendmsg", "flags", flags); err != nil {
		return err
	}
	if err := checkMsg("Sendmsg", fd, msg); err != nil {
		return err
	}
	msgOp(s, sys.OpSendmsg, fd, msg, flags)
	return nil
}

// SendmsgZC is a zero-copy Sendmsg: io_uring_prep_sendmsg_zc(3),
// IORING_OP_SENDMSG_ZC, Linux 6.1. Like SendZC it posts the result (F_MORE)
// and then an F_NOTIF CQE; the kernel reads the data buffers until the
// F_NOTIF CQE and the rest of *msg until the first.
func SendmsgZC(s *sys.SQE, fd int, msg *unix.Msghdr, flags int) error {
	if err := checkFlags32("SendmsgZC", "flags", flags); err != nil {
		return err
	}
	if err := checkMsg("SendmsgZC", fd, msg); err != nil {
		return err
	}
	msgOp(s, sys.OpSendmsgZC, fd, msg, flags)
	return nil
}

// SendmsgZCFixed is SendmsgZC whose iovecs lie inside registered buffer
// bufIndex: io_uring_prep_sendmsg_zc_fixed(3), Linux 6.15. Memory as for
// SendmsgZC.
func SendmsgZCFixed(s *sys.SQE, fd int, msg *unix.Msghdr, flags int, bufIndex uint16) error {
	if err := checkFlags32("SendmsgZCFixed", "flags", flags); err != nil {
		return err
	}
	if err := checkMsg("SendmsgZCFixed", fd, msg); err != nil {
		return err
	}
	msgOp(s, sys.OpSendmsgZC, fd, msg, flags)
	s.Ioprio = sys.RecvsendFixedBuf
	s.BufIndex = bufIndex
	return nil
}

// Recvmsg prepares recvmsg(2) on socket fd into *msg:
// io_uring_prep_recvmsg(3), IORING_OP_RECVMSG, Linux 5.3. The kernel reads
// *msg and writes what it points to until the CQE.
func Recvmsg(s *sys.SQE, fd int, msg *unix.Msghdr, flags int) error {
	if err := checkFlags32("Recvmsg", "flags", flags); err != nil {
		return err
	}
	if err := checkMsg("Recvmsg", fd, msg); err != nil {
		return err
	}
	msgOp(s, sys.OpRecvmsg, fd, msg, flags)
	return nil
}

// RecvmsgMultishot prepares a recvmsg that stays armed, each CQE naming a
// buffer of provided-buffer group group that starts with a
// sys.RecvmsgOut header, then msg.Namelen bytes of name area, then
// msg.Controllen bytes of control area, then the payload (parse it with
// cqe.ParseRecvmsg): io_uring_prep_recvmsg_multishot(3), IORING_OP_RECVMSG
// with IORING_RECV_MULTISHOT, Linux 6.0. msg only gives the name and
// control lengths (no iovecs); the kernel reads it at submission.
func RecvmsgMultishot(s *sys.SQE, fd int, msg *unix.Msghdr, flags int, group uint16) error {
	if err := checkFlags32("RecvmsgMultishot", "flags", flags); err != nil {
		return err
	}
	if err := checkMsg("RecvmsgMultishot", fd, msg); err != nil {
		return err
	}
	if msg.Iovlen != 0 {
		return argErr("RecvmsgMultishot", "msg.Iovlen", "must be 0: the payload goes to a provided buffer")
	}
	msgOp(s, sys.OpRecvmsg, fd, msg, flags)
	s.Ioprio = sys.RecvMultishot
	s.Flags = sys.SQEBufferSelect
	s.BufIndex = group
	return nil
}

// RecvZC prepares a zero-copy receive of up to n bytes (0: unlimited) from
// socket fd into the zero-copy rx area registered as interface queue ifq
// (REGISTER_ZCRX_IFQ; needs a NIC with header split): IORING_OP_RECV_ZC,
// Linux 6.15. It is multishot; each CQE32 carries the area offset in its
// extras. No user memory is held beyond the registered area.
func RecvZC(s *sys.SQE, fd int, n uint32, flags int, ifq uint32) error {
	if err := checkFlags32("RecvZC", "flags", flags); err != nil {
		return err
	}
	if err := checkFd("RecvZC", "fd", fd); err != nil {
		return err
	}
	prep(s, sys.OpRecvZC, fd, 0, n, 0)
	s.OpFlags = uint32(flags)
	s.Ioprio = sys.RecvMultishot
	s.FileIndex = ifq
	return nil
}
