//go:build linux

package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// Sockaddr is any raw socket address of golang.org/x/sys/unix; a builder
// passes the pointer and sizeof(T) to the kernel.
type Sockaddr interface {
	unix.RawSockaddrInet4 | unix.RawSockaddrInet6 | unix.RawSockaddrUnix |
		unix.RawSockaddrAny | unix.RawSockaddrLinklayer | unix.RawSockaddrNetlink |
		unix.RawSockaddrVM | unix.RawSockaddrXDP | unix.RawSockaddrCAN |
		unix.RawSockaddrALG | unix.RawSockaddrTIPC
}

// Socket prepares socket(2) with domain, type and protocol:
// io_uring_prep_socket(3), IORING_OP_SOCKET, Linux 5.19. SOCK_CLOEXEC is
// always added. The result is the new fd. No memory is held.
func Socket(s *sys.SQE, domain, typ, proto int) error {
	if err := checkSocket("Socket", domain, typ, proto); err != nil {
		return err
	}
	prep(s, sys.OpSocket, domain, 0, uint32(proto), uint64(uint32(typ|unix.SOCK_CLOEXEC)))
	return nil
}

// SocketDirect is Socket into fixed-file slot slot (AllocSlot: any free
// slot): io_uring_prep_socket_direct(3), IORING_OP_SOCKET, Linux 5.19. The
// result is 0, or the slot allocated. SOCK_CLOEXEC in typ is rejected. No
// memory is held.
func SocketDirect(s *sys.SQE, domain, typ, proto int, slot Slot) error {
	if err := firstErr(checkSocket("SocketDirect", domain, typ, proto), checkSlot("SocketDirect", "slot", slot, true)); err != nil {
		return err
	}
	if typ&unix.SOCK_CLOEXEC != 0 {
		return argErr("SocketDirect", "typ", "has SOCK_CLOEXEC, which direct descriptors refuse")
	}
	prep(s, sys.OpSocket, domain, 0, uint32(proto), uint64(uint32(typ)))
	s.FileIndex = targetIndex(slot)
	return nil
}

func checkSocket(fn string, domain, typ, proto int) error {
	switch {
	case domain < 0 || domain > maxInt32:
		return argErr(fn, "domain", "= "+strconv.Itoa(domain)+" is out of range")
	case typ < 0 || typ > maxInt32:
		return argErr(fn, "typ", "= "+strconv.Itoa(typ)+" is out of range")
	case proto < 0 || proto > maxInt32:
		return argErr(fn, "proto", "= "+strconv.Itoa(proto)+" is out of range")
	}
	return nil
}

// Bind prepares bind(2) of fd to *sa (length sizeof(T)):
// io_uring_prep_bind(3), IORING_OP_BIND, Linux 6.11. The kernel reads *sa
// until the CQE.
func Bind[T Sockaddr](s *sys.SQE, fd int, sa *T) error {
	if err := checkSockaddr("Bind", fd, sa); err != nil {
		return err
	}
	prep(s, sys.OpBind, fd, ptrOf(sa), 0, uint64(sys.SizeOf[T]()))
	return nil
}

// Connect prepares connect(2) of fd to *sa (length sizeof(T)):
// io_uring_prep_connect(3), IORING_OP_CONNECT, Linux 5.5. The kernel reads
// *sa until the CQE.
func Connect[T Sockaddr](s *sys.SQE, fd int, sa *T) error {
	if err := checkSockaddr("Connect", fd, sa); err != nil {
		return err
	}
	prep(s, sys.OpConnect, fd, ptrOf(sa), 0, uint64(sys.SizeOf[T]()))
	return nil
}

func checkSockaddr[T Sockaddr](fn string, fd int, sa *T) error {
	if err := checkFd(fn, "fd", fd); err != nil {
		return err
	}
	if sa == nil {
		return argErr(fn, "sa", "is nil")
	}
	return nil
}

// Listen prepares listen(2) on fd with backlog: io_uring_prep_listen(3),
// IORING_OP_LISTEN, Linux 6.11. No memory is held.
func Listen(s *sys.SQE, fd, backlog int) error {
	if err := checkFd("Listen", "fd", fd); err != nil {
		return err
	}
	if backlog < 0 || backlog > maxInt32 {
		return argErr("Listen", "backlog", "= "+strconv.Itoa(backlog)+" is out of range")
	}
	prep(s, sys.OpListen, fd, 0, uint32(backlog), 0)
	return nil
}

// Shutdown prepares shutdown(2) of fd (how: unix.SHUT_RD, SHUT_WR,
// SHUT_RDWR): io_uring_prep_shutdown(3), IORING_OP_SHUTDOWN, Linux 5.11. No
// memory is held.
func Shutdown(s *sys.SQE, fd, how int) error {
	if err := checkFd("Shutdown", "fd", fd); err != nil {
		return err
	}
	if how < unix.SHUT_RD || how > unix.SHUT_RDWR {
		return argErr("Shutdown", "how", "= "+strconv.Itoa(how)+" is not SHUT_RD, SHUT_WR or SHUT_RDWR")
	}
	prep(s, sys.OpShutdown, fd, 0, uint32(how), 0)
	return nil
}

func checkAccept(fn string, fd int, sa *unix.RawSockaddrAny, salen *uint32) error {
	if err := checkFd(fn, "fd", fd); err != nil {
		return err
	}
	if (sa == nil) != (salen == nil) {
		return argErr(fn, "sa, salen", "must both be nil or both be set")
	}
	return nil
}

func accept(s *sys.SQE, fd int, sa *unix.RawSockaddrAny, salen *uint32, flags int) {
	prep(s, sys.OpAccept, fd, ptrOf(sa), 0, ptrOf(salen))
	s.OpFlags = uint32(flags)
}

// Accept prepares accept4(2) on listening socket fd with SOCK_* flags
// (SOCK_CLOEXEC is always added): io_uring_prep_accept(3),
// IORING_OP_ACCEPT, Linux 5.5. sa and salen are both nil, or receive the
// peer address (set *salen to sizeof(*sa) first). The result is the new
// fd. The kernel writes *sa and *salen until the CQE.
func Accept(s *sys.SQE, fd int, sa *unix.RawSockaddrAny, salen *uint32, flags int) error {
	if err := checkFlags32("Accept", "flags", flags); err != nil {
		return err
	}
	if err := checkAccept("Accept", fd, sa, salen); err != nil {
		return err
	}
	accept(s, fd, sa, salen, flags|unix.SOCK_CLOEXEC)
	return nil
}

// AcceptDirect is Accept into fixed-file slot slot (AllocSlot: any free
// slot): io_uring_prep_accept_direct(3), IORING_OP_ACCEPT, Linux 5.15
// (AllocSlot: 5.19). SOCK_CLOEXEC in flags is rejected. The result is 0, or
// the slot allocated. Memory as for Accept.
func AcceptDirect(s *sys.SQE, fd int, sa *unix.RawSockaddrAny, salen *uint32, flags int, slot Slot) error {
	if err := checkFlags32("AcceptDirect", "flags", flags); err != nil {
		return err
	}
	if err := firstErr(checkAccept("AcceptDirect", fd, sa, salen), checkSlot("AcceptDirect", "slot", slot, true),
		checkNoSockCloexec("AcceptDirect", flags)); err != nil {
		return err
	}
	accept(s, fd, sa, salen, flags)
	s.FileIndex = targetIndex(slot)
	return nil
}

// AcceptMultishot prepares an accept that stays armed, posting one CQE
// (with F_MORE while armed) per connection: io_uring_prep_multishot_accept(3),
// IORING_OP_ACCEPT with IORING_ACCEPT_MULTISHOT, Linux 5.19. SOCK_CLOEXEC is
// always added. sa and salen, if set, are overwritten by each connection;
// the kernel writes them until the last CQE.
func AcceptMultishot(s *sys.SQE, fd int, sa *unix.RawSockaddrAny, salen *uint32, flags int) error {
	if err := checkFlags32("AcceptMultishot", "flags", flags); err != nil {
		return err
	}
	if err := checkAccept("AcceptMultishot", fd, sa, salen); err != nil {
		return err
	}
	accept(s, fd, sa, salen, flags|unix.SOCK_CLOEXEC)
	s.Ioprio = sys.AcceptMultishot
	return nil
}

// AcceptMultishotDirect is AcceptMultishot into fixed-file slots the kernel
// allocates (each CQE's result is a slot):
// io_uring_prep_multishot_accept_direct(3), Linux 5.19. SOCK_CLOEXEC in
// flags is rejected. Memory as for AcceptMultishot.
func AcceptMultishotDirect(s *sys.SQE, fd int, sa *unix.RawSockaddrAny, salen *uint32, flags int) error {
	if err := checkFlags32("AcceptMultishotDirect", "flags", flags); err != nil {
		return err
	}
	if err := firstErr(checkAccept("AcceptMultishotDirect", fd, sa, salen), checkNoSockCloexec("AcceptMultishotDirect", flags)); err != nil {
		return err
	}
	accept(s, fd, sa, salen, flags)
	s.Ioprio = sys.AcceptMultishot
	s.FileIndex = targetIndex(AllocSlot)
	return nil
}

func checkNoSockCloexec(fn string, flags int) error {
	if flags&unix.SOCK_CLOEXEC != 0 {
		return argErr(fn, "flags", "has SOCK_CLOEXEC, which direct descriptors refuse")
	}
	return nil
}
