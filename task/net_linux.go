//go:build linux

package task

import (
	"encoding/binary"
	"net/netip"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
)

// putSockaddr encodes ap as a struct sockaddr_in/_in6 into b; it returns
// the length.
func putSockaddr(b *[128]byte, ap netip.AddrPort) uint32 {
	*b = [128]byte{}
	a := ap.Addr()
	if a.Is4() {
		binary.NativeEndian.PutUint16(b[0:], unix.AF_INET)
		binary.BigEndian.PutUint16(b[2:], ap.Port())
		a4 := a.As4()
		copy(b[4:8], a4[:])
		return unix.SizeofSockaddrInet4
	}
	binary.NativeEndian.PutUint16(b[0:], unix.AF_INET6)
	binary.BigEndian.PutUint16(b[2:], ap.Port())
	a16 := a.As16()
	copy(b[8:24], a16[:])
	return unix.SizeofSockaddrInet6
}

// getSockaddr decodes an inet sockaddr; the zero AddrPort for others.
func getSockaddr(b *[128]byte, n uint32) netip.AddrPort {
	switch binary.NativeEndian.Uint16(b[0:]) {
	case unix.AF_INET:
		if n >= unix.SizeofSockaddrInet4 {
			return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), binary.BigEndian.Uint16(b[2:]))
		}
	case unix.AF_INET6:
		if n >= unix.SizeofSockaddrInet6 {
			return netip.AddrPortFrom(netip.AddrFrom16([16]byte(b[8:24])), binary.BigEndian.Uint16(b[2:]))
		}
	}
	return netip.AddrPort{}
}

func checkAddr(fn string, ap netip.AddrPort) error {
	if !ap.IsValid() {
		return &ArgError{fn, "addr", "is not a valid IP address and port"}
	}
	return nil
}

// Socket creates a socket and returns its fd (IORING_OP_SOCKET, 5.19);
// SOCK_CLOEXEC is added.
func (t *T) Socket(domain, typ, proto int) (int, error) {
	s, sl, err := t.start("socket", -1)
	if err != nil {
		return -1, err
	}
	s.Opcode, s.Fd, s.Off, s.Len = sys.OpSocket, int32(domain), uint64(typ|unix.SOCK_CLOEXEC), uint32(proto)
	sl.kind |= slotFdResult
	res, _, err := t.wait(s, sl, "socket", -1)
	if err != nil {
		return -1, err
	}
	return int(res), nil
}

// Connect connects fd to addr (IORING_OP_CONNECT, 5.5).
func (t *T) Connect(fd int, addr netip.AddrPort) error {
	if err := checkAddr("Connect", addr); err != nil {
		return err
	}
	s, sl, err := t.start("connect", fd)
	if err != nil {
		return err
	}
	n := putSockaddr(&sl.name, addr)
	s.Opcode, s.Fd, s.Addr, s.Off = sys.OpConnect, int32(fd), sys.PtrAddr(&sl.name), uint64(n)
	_, _, err = t.wait(s, sl, "connect", fd)
	return err
}

// Accept accepts a connection on fd and returns the new fd and the peer
// (IORING_OP_ACCEPT, 5.5); SOCK_CLOEXEC is added. If the task's context is
// cancelled and the accept completes anyway, the new fd is closed.
func (t *T) Accept(fd int, flags int) (int, netip.AddrPort, error) {
	s, sl, err := t.start("accept", fd)
	if err != nil {
		return -1, netip.AddrPort{}, err
	}
	sl.name = [128]byte{}
	sl.msg.Namelen = uint32(len(sl.name)) // the addrlen in/out word
	s.Opcode, s.Fd, s.Addr, s.Off, s.OpFlags = sys.OpAccept, int32(fd), sys.PtrAddr(&sl.name), sys.PtrAddr(&sl.msg.Namelen), uint32(flags|unix.SOCK_CLOEXEC)
	sl.kind |= slotFdResult
	t.ext().peerBuf = &sl.name
	res, _, err := t.wait(s, sl, "accept", fd)
	if err != nil {
		return -1, netip.AddrPort{}, err
	}
	return int(res), t.x.peer, nil
}

// Recv receives into buf (IORING_OP_RECV, 5.6); 0 means the peer shut down.
func (t *T) Recv(fd int, buf []byte, flags int) (int, error) {
	if err := checkLen("Recv", len(buf)); err != nil {
		return 0, err
	}
	s, sl, err := t.start("recv", fd)
	if err != nil {
		return 0, err
	}
	s.Opcode, s.Fd, s.Addr, s.Len, s.OpFlags = sys.OpRecv, int32(fd), sys.SliceAddr(buf), uint32(len(buf)), uint32(flags)
	sl.buf = buf
	sl.pinBytes(buf)
	res, _, err := t.wait(s, sl, "recv", fd)
	return int(res), err
}

// Send sends buf (IORING_OP_SEND, 5.6).
func (t *T) Send(fd int, buf []byte, flags int) (int, error) {
	if err := checkLen("Send", len(buf)); err != nil {
		return 0, err
	}
	s, sl, err := t.start("send", fd)
	if err != nil {
		return 0, err
	}
	s.Opcode, s.Fd, s.Addr, s.Len, s.OpFlags = sys.OpSend, int32(fd), sys.SliceAddr(buf), uint32(len(buf)), uint32(flags|unix.MSG_NOSIGNAL)
	sl.buf = buf
	sl.pinBytes(buf)
	res, _, err := t.wait(s, sl, "send", fd)
	return int(res), err
}

// SendZC sends buf without copying it (IORING_OP_SEND_ZC, 6.0). The kernel
// holds buf until its notification CQE; SendZC returns after that CQE, so
// buf is free again when it returns.
func (t *T) SendZC(fd int, buf []byte, flags int) (int, error) {
	if err := checkLen("SendZC", len(buf)); err != nil {
		return 0, err
	}
	s, sl, err := t.start("send_zc", fd)
	if err != nil {
		return 0, err
	}
	s.Opcode, s.Fd, s.Addr, s.Len, s.OpFlags = sys.OpSendZC, int32(fd), sys.SliceAddr(buf), uint32(len(buf)), uint32(flags|unix.MSG_NOSIGNAL)
	sl.kind |= slotZC
	sl.buf = buf
	sl.pinBytes(buf)
	res, _, err := t.wait(s, sl, "send_zc", fd)
	return int(res), err
}

// Sendmsg sends bufs and the control data oob, to addr when it is valid
// (unconnected sockets) (IORING_OP_SENDMSG, 5.3).
func (t *T) Sendmsg(fd int, bufs [][]byte, oob []byte, addr netip.AddrPort, flags int) (int, error) {
	if len(bufs) > maxIov {
		return 0, &ArgError{"Sendmsg", "len(bufs)", "exceeds IOV_MAX (1024)"}
	}
	s, sl, err := t.start("sendmsg", fd)
	if err != nil {
		return 0, err
	}
	sl.prepMsg(bufs, oob)
	if addr.IsValid() {
		sl.msg.Name = &sl.name[0]
		sl.msg.Namelen = putSockaddr(&sl.name, addr)
	}
	s.Opcode, s.Fd, s.Addr, s.Len, s.OpFlags = sys.OpSendmsg, int32(fd), sys.PtrAddr(&sl.msg), 1, uint32(flags|unix.MSG_NOSIGNAL)
	res, _, err := t.wait(s, sl, "sendmsg", fd)
	return int(res), err
}

// Recvmsg receives into bufs and oob (IORING_OP_RECVMSG, 5.3); it returns
// the byte count, the control bytes, the msg flags and the sender.
func (t *T) Recvmsg(fd int, bufs [][]byte, oob []byte, flags int) (n, oobn, recvflags int, from netip.AddrPort, err error) {
	if len(bufs) > maxIov {
		return 0, 0, 0, from, &ArgError{"Recvmsg", "len(bufs)", "exceeds IOV_MAX (1024)"}
	}
	s, sl, err := t.start("recvmsg", fd)
	if err != nil {
		return 0, 0, 0, from, err
	}
	sl.prepMsg(bufs, oob)
	sl.name = [128]byte{}
	sl.msg.Name = &sl.name[0]
	sl.msg.Namelen = uint32(len(sl.name))
	s.Opcode, s.Fd, s.Addr, s.Len, s.OpFlags = sys.OpRecvmsg, int32(fd), sys.PtrAddr(&sl.msg), 1, uint32(flags)
	x := t.ext()
	x.peerBuf = &sl.name
	x.msgOut = true
	res, _, err := t.wait(s, sl, "recvmsg", fd)
	x.msgOut = false
	if err != nil {
		return 0, 0, 0, from, err
	}
	return int(res), x.oobn, x.rflags, x.peer, nil
}

func (sl *opSlot) prepMsg(bufs [][]byte, oob []byte) {
	sl.msg = unix.Msghdr{}
	iov := sl.fillIov(bufs)
	if len(iov) > 0 {
		sl.msg.Iov = &iov[0]
		sl.msg.SetIovlen(len(iov))
	}
	if len(oob) > 0 {
		sl.msg.Control = &oob[0]
		sl.msg.SetControllen(len(oob))
		sl.buf = oob
		sl.pinBytes(oob)
	}
}

// Shutdown shuts down part of a full-duplex connection (unix.SHUT_WR ...)
// (IORING_OP_SHUTDOWN, 5.11).
func (t *T) Shutdown(fd, how int) error {
	_, err := t.simple("shutdown", sys.OpShutdown, fd, 0, uint32(how), 0, 0)
	return err
}
