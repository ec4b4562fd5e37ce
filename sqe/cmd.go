//go:build linux

package sqe

import (
	"encoding/binary"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
)

// URING_CMD on sockets (Linux 6.7): the socket's protocol must implement
// ioctl (TCP, UDP, ...; not AF_UNIX), else the result is EOPNOTSUPP.

func sockCmd(s *sys.SQE, fd int, cmdOp uint32, level, optname int, optval []byte) {
	prep(s, sys.OpUringCmd, fd, uint64(uint32(level))|uint64(uint32(optname))<<32, 0, uint64(cmdOp))
	s.FileIndex = uint32(len(optval))
	s.Addr3 = addrOf(optval)
}

// SockInq prepares ioctl(SIOCINQ) on socket fd: the result is the number
// of bytes queued for reading: io_uring_prep_cmd_sock(3) with
// SOCKET_URING_OP_SIOCINQ, IORING_OP_URING_CMD, Linux 6.7. No memory is
// held.
func SockInq(s *sys.SQE, fd int) error {
	if err := checkFd("SockInq", "fd", fd); err != nil {
		return err
	}
	sockCmd(s, fd, sys.SocketUringOpSIOCINQ, 0, 0, nil)
	return nil
}

// SockOutq prepares ioctl(SIOCOUTQ) on socket fd: the result is the number
// of bytes not yet sent (or acknowledged): SOCKET_URING_OP_SIOCOUTQ, Linux
// 6.7. No memory is held.
func SockOutq(s *sys.SQE, fd int) error {
	if err := checkFd("SockOutq", "fd", fd); err != nil {
		return err
	}
	sockCmd(s, fd, sys.SocketUringOpSIOCOUTQ, 0, 0, nil)
	return nil
}

func checkSockopt(fn string, fd, level, optname int, optval []byte) error {
	if err := checkFd(fn, "fd", fd); err != nil {
		return err
	}
	switch {
	case level < 0 || level > maxInt32:
		return argErr(fn, "level", "= "+strconv.Itoa(level)+" is out of range")
	case optname < 0 || optname > maxInt32:
		return argErr(fn, "optname", "= "+strconv.Itoa(optname)+" is out of range")
	case len(optval) > maxInt32:
		return argErr(fn, "len(optval)", "= "+strconv.Itoa(len(optval))+" exceeds 31 bits")
	}
	return nil
}

// Getsockopt prepares getsockopt(2) of level/optname on socket fd into
// optval; the result is the option's length: io_uring_prep_cmd_sock(3)
// with SOCKET_URING_OP_GETSOCKOPT, Linux 6.7. The kernel writes optval
// until the CQE.
func Getsockopt(s *sys.SQE, fd, level, optname int, optval []byte) error {
	if err := checkSockopt("Getsockopt", fd, level, optname, optval); err != nil {
		return err
	}
	sockCmd(s, fd, sys.SocketUringOpGetsockopt, level, optname, optval)
	return nil
}

// Setsockopt prepares setsockopt(2) of level/optname on socket fd to
// optval: io_uring_prep_cmd_sock(3) with SOCKET_URING_OP_SETSOCKOPT, Linux
// 6.7. The kernel reads optval until the CQE.
func Setsockopt(s *sys.SQE, fd, level, optname int, optval []byte) error {
	if err := checkSockopt("Setsockopt", fd, level, optname, optval); err != nil {
		return err
	}
	sockCmd(s, fd, sys.SocketUringOpSetsockopt, level, optname, optval)
	return nil
}

// Getsockname prepares getsockname(2) (peer: getpeername(2)) of socket fd
// into *sa, with *salen set to sizeof(*sa) first and updated to the
// address's length: SOCKET_URING_OP_GETSOCKNAME, IORING_OP_URING_CMD,
// Linux 6.19 (older kernels complete it with EOPNOTSUPP). It works on a
// fixed-file slot too, where getsockname(2) cannot. The kernel writes *sa
// and *salen until the CQE.
func Getsockname(s *sys.SQE, fd int, sa *unix.RawSockaddrAny, salen *uint32, peer bool) error {
	if err := checkFd("Getsockname", "fd", fd); err != nil {
		return err
	}
	switch {
	case sa == nil:
		return argErr("Getsockname", "sa", "is nil")
	case salen == nil:
		return argErr("Getsockname", "salen", "is nil")
	}
	prep(s, sys.OpUringCmd, fd, ptrOf(sa), 0, uint64(sys.SocketUringOpGetsockname))
	s.Addr3 = ptrOf(salen)
	if peer {
		s.FileIndex = 1 // the optlen field: 1 asks for the peer's name
	}
	return nil
}

// UringCmd prepares a driver command cmdOp on fd (a char device, NVMe
// generic device, socket, ...) whose first len(cmd) <= 16 command bytes are
// cmd, copied into the SQE: io_uring_prep_uring_cmd(3), IORING_OP_URING_CMD,
// Linux 5.19. What memory the kernel holds is the driver's contract.
func UringCmd(s *sys.SQE, fd int, cmdOp uint32, cmd []byte) error {
	if err := checkFd("UringCmd", "fd", fd); err != nil {
		return err
	}
	if len(cmd) > 16 {
		return argErr("UringCmd", "len(cmd)", "= "+strconv.Itoa(len(cmd))+" exceeds 16 (use UringCmdSQE128 on an SQE128 ring)")
	}
	prep(s, sys.OpUringCmd, fd, 0, 0, uint64(cmdOp))
	var b [16]byte
	copy(b[:], cmd)
	s.Addr3 = binary.LittleEndian.Uint64(b[0:8])
	s.Pad2 = binary.LittleEndian.Uint64(b[8:16])
	return nil
}

// UringCmdSQE128 is UringCmd on a 128-byte SQE of a ring set up with
// SQE128, with up to 80 command bytes: io_uring_prep_uring_cmd(3) on an
// SQE of such a ring, IORING_OP_URING_CMD, Linux 5.19 (NVMe passthrough
// needs it). On SQE_MIXED rings (6.19) a 128-byte command needs its own
// opcode: UringCmd128.
func UringCmdSQE128(s *sys.SQE128, fd int, cmdOp uint32, cmd []byte) error {
	return uringCmdBig("UringCmdSQE128", s, sys.OpUringCmd, fd, cmdOp, cmd)
}

// UringCmd128 prepares a driver command cmdOp on fd in a 128-byte SQE, with
// up to 80 command bytes: io_uring_prep_uring_cmd128(3),
// IORING_OP_URING_CMD128, Linux 6.19. It is the form for SQE_MIXED rings,
// where it takes two SQE slots (it works on SQE128 rings too); older
// kernels answer EINVAL, and there UringCmdSQE128 on an SQE128 ring does
// the same. What memory the kernel holds is the driver's contract.
func UringCmd128(s *sys.SQE128, fd int, cmdOp uint32, cmd []byte) error {
	return uringCmdBig("UringCmd128", s, sys.OpUringCmd128, fd, cmdOp, cmd)
}

func uringCmdBig(fn string, s *sys.SQE128, op sys.Op, fd int, cmdOp uint32, cmd []byte) error {
	if err := checkFd(fn, "fd", fd); err != nil {
		return err
	}
	if len(cmd) > 80 {
		return argErr(fn, "len(cmd)", "= "+strconv.Itoa(len(cmd))+" exceeds 80")
	}
	var b [80]byte
	copy(b[:], cmd)
	prep(&s.SQE, op, fd, 0, 0, uint64(cmdOp))
	s.Addr3 = binary.LittleEndian.Uint64(b[0:8])
	s.Pad2 = binary.LittleEndian.Uint64(b[8:16])
	copy(s.Cmd[:], b[16:])
	return nil
}

// Nop128 prepares a no-op in a 128-byte SQE: io_uring_prep_nop128(3),
// IORING_OP_NOP128, Linux 6.19. On an SQE_MIXED ring it takes two SQE
// slots; it works on SQE128 rings too. Older kernels answer EINVAL. It
// writes all 128 bytes.
func Nop128(s *sys.SQE128) {
	prep(&s.SQE, sys.OpNop128, -1, 0, 0, 0)
	s.Cmd = [64]byte{}
}
