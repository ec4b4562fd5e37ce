//go:build linux

package task

import (
	"encoding/binary"
	"net/netip"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// rawSockaddrBytes is the memory of sa as the kernel wrote it.
func rawSockaddrBytes(sa *unix.RawSockaddrAny, b *[128]byte) []byte {
	binary.NativeEndian.PutUint16(b[0:], sa.Addr.Family)
	for i, v := range sa.Addr.Data {
		b[2+i] = byte(v)
	}
	for i, v := range sa.Pad {
		b[16+i] = byte(v)
	}
	return b[:16+len(sa.Pad)]
}

// htons is a port in network byte order, as sockaddr_in's sin_port.
func htons(p uint16) uint16 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], p)
	return binary.NativeEndian.Uint16(b[:])
}

func checkAddr(fn string, ap netip.AddrPort) error {
	if !ap.IsValid() {
		return argError(fn, "addr", "is not a valid IP address and port")
	}
	return nil
}

// Socket creates a socket and returns its fd (IORING_OP_SOCKET, 5.19);
// SOCK_CLOEXEC is added.
func (t *T) Socket(domain, typ, proto int) (int, error) {
	if t.ex.fb != nil {
		return t.fbSocket(domain, typ, proto)
	}
	s, sl, err := t.start("socket", -1)
	if err != nil {
		return -1, err
	}
	if err := sqe.Socket(s, domain, typ, proto); err != nil {
		return -1, t.abandon(s, sl, "Socket", err)
	}
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
	if t.ex.fb != nil {
		return t.fbConnect(fd, addr)
	}
	s, sl, err := t.start("connect", fd)
	if err != nil {
		return err
	}
	if a := addr.Addr(); a.Is4() {
		sl.sa4 = unix.RawSockaddrInet4{Family: unix.AF_INET, Port: htons(addr.Port()), Addr: a.As4()}
		err = sqe.Connect(s, fd, &sl.sa4)
	} else {
		sl.sa6 = unix.RawSockaddrInet6{Family: unix.AF_INET6, Port: htons(addr.Port()), Addr: a.As16(), Scope_id: sockaddr.ZoneIndex(a.Zone())}
		err = sqe.Connect(s, fd, &sl.sa6)
	}
	if err != nil {
		return t.abandon(s, sl, "Connect", err)
	}
	_, _, err = t.wait(s, sl, "connect", fd)
	return err
}

// Accept accepts a connection on fd and returns the new fd and the peer
// (IORING_OP_ACCEPT, 5.5); SOCK_CLOEXEC is added. If the task's context is
// cancelled and the accept completes anyway, the new fd is closed.
func (t *T) Accept(fd int, flags int) (int, netip.AddrPort, error) {
	if t.ex.fb != nil {
		return t.fbAccept(fd, flags)
	}
	s, sl, err := t.start("accept", fd)
	if err != nil {
		return -1, netip.AddrPort{}, err
	}
	sl.sa = unix.RawSockaddrAny{}
	sl.salen = unix.SizeofSockaddrAny // the addrlen in/out word
	if err := sqe.Accept(s, fd, &sl.sa, &sl.salen, flags); err != nil {
		return -1, netip.AddrPort{}, t.abandon(s, sl, "Accept", err)
	}
	sl.kind |= slotFdResult | slotPeer
	res, _, err := t.wait(s, sl, "accept", fd)
	if err != nil {
		return -1, netip.AddrPort{}, err
	}
	return int(res), t.x.peer, nil
}

// Recv receives into buf (IORING_OP_RECV, 5.6); 0 means the peer shut down.
// Bytes a multishot loop of fd received and did not yield come first
// (MSG_PEEK sees them without taking them).
func (t *T) Recv(fd int, buf []byte, flags int) (int, error) {
	if t.ex.fb != nil {
		return t.fbSock("Recv", "recv", fd, buf, flags, false)
	}
	if len(t.ex.kept) != 0 { // bytes a multishot loop received and did not yield
		if n := t.ex.takeKept(fd, buf, flags&unix.MSG_PEEK != 0); n > 0 {
			return n, nil
		}
	}
	// Tried directly only when the last recv left data behind (a full
	// buffer, or CQE_F_SOCK_NONEMPTY): a ping-pong's EAGAIN costs a syscall.
	if flags == 0 && len(buf) > 0 && !t.recvDrained && t.direct() {
		n, err := fdio.RecvNonblock(fd, buf)
		if done, err := directDone("recv", fd, err); done {
			t.ex.countOp(classNet, true)
			t.recvDrained = n < len(buf)
			return n, err
		}
	}
	s, sl, err := t.start("recv", fd)
	if err != nil {
		return 0, err
	}
	if err := sqe.Recv(s, fd, buf, flags); err != nil {
		return 0, t.abandon(s, sl, "Recv", err)
	}
	sl.keepBytes(buf)
	res, cf, err := t.wait(s, sl, "recv", fd)
	t.recvDrained = sys.CQEFlags(cf)&sys.CQEFSockNonempty == 0
	return int(res), err
}

// Send sends buf (IORING_OP_SEND, 5.6); MSG_NOSIGNAL is added.
func (t *T) Send(fd int, buf []byte, flags int) (int, error) {
	if t.ex.fb != nil {
		return t.fbSock("Send", "send", fd, buf, flags, true)
	}
	if flags == 0 && len(buf) > 0 && t.direct() {
		n, err := fdio.SendNonblock(fd, buf)
		if done, err := directDone("send", fd, err); done {
			t.ex.countOp(classNet, true)
			return n, err
		}
	}
	s, sl, err := t.start("send", fd)
	if err != nil {
		return 0, err
	}
	if err := sqe.Send(s, fd, buf, flags|unix.MSG_NOSIGNAL); err != nil {
		return 0, t.abandon(s, sl, "Send", err)
	}
	sl.keepBytes(buf)
	res, _, err := t.wait(s, sl, "send", fd)
	return int(res), err
}

// SendZC sends buf without copying it (IORING_OP_SEND_ZC, 6.0). The kernel
// holds buf until its notification CQE; SendZC returns after that CQE, so
// buf is free again when it returns.
func (t *T) SendZC(fd int, buf []byte, flags int) (int, error) {
	if t.ex.fb != nil {
		return t.fbSock("SendZC", "send_zc", fd, buf, flags, true)
	}
	s, sl, err := t.start("send_zc", fd)
	if err != nil {
		return 0, err
	}
	if err := sqe.SendZC(s, fd, buf, flags|unix.MSG_NOSIGNAL, 0); err != nil {
		return 0, t.abandon(s, sl, "SendZC", err)
	}
	sl.kind |= slotZC
	sl.keepBytes(buf)
	res, _, err := t.wait(s, sl, "send_zc", fd)
	return int(res), err
}

// Sendmsg sends bufs and the control data oob, to addr when it is valid
// (unconnected sockets) (IORING_OP_SENDMSG, 5.3); MSG_NOSIGNAL is added.
func (t *T) Sendmsg(fd int, bufs [][]byte, oob []byte, addr netip.AddrPort, flags int) (int, error) {
	if t.ex.fb != nil {
		return t.fbSendmsg(fd, bufs, oob, addr, flags)
	}
	s, sl, err := t.start("sendmsg", fd)
	if err != nil {
		return 0, err
	}
	err = sl.prepMsg(bufs, oob)
	if err == nil {
		if addr.IsValid() {
			sl.msg.Name = &sl.name[0]
			sl.msg.Namelen = sockaddr.Put(&sl.name, addr)
		}
		err = sqe.Sendmsg(s, fd, &sl.msg, flags|unix.MSG_NOSIGNAL)
	}
	if err != nil {
		return 0, t.abandon(s, sl, "Sendmsg", err)
	}
	res, _, err := t.wait(s, sl, "sendmsg", fd)
	return int(res), err
}

// Recvmsg receives into bufs and oob (IORING_OP_RECVMSG, 5.3); it returns
// the byte count, the control bytes, the msg flags and the sender.
func (t *T) Recvmsg(fd int, bufs [][]byte, oob []byte, flags int) (n, oobn, recvflags int, from netip.AddrPort, err error) {
	if t.ex.fb != nil {
		return t.fbRecvmsg(fd, bufs, oob, flags)
	}
	s, sl, err := t.start("recvmsg", fd)
	if err != nil {
		return 0, 0, 0, from, err
	}
	err = sl.prepMsg(bufs, oob)
	if err == nil {
		sl.name = [128]byte{}
		sl.msg.Name = &sl.name[0]
		sl.msg.Namelen = uint32(len(sl.name))
		err = sqe.Recvmsg(s, fd, &sl.msg, flags)
	}
	if err != nil {
		return 0, 0, 0, from, t.abandon(s, sl, "Recvmsg", err)
	}
	sl.kind |= slotPeer | slotMsgOut
	res, _, err := t.wait(s, sl, "recvmsg", fd)
	if err != nil {
		return 0, 0, 0, from, err
	}
	x := t.x
	return int(res), x.oobn, x.rflags, x.peer, nil
}

func (sl *opSlot) prepMsg(bufs [][]byte, oob []byte) error {
	sl.msg = unix.Msghdr{}
	iov, err := sl.fillIov(bufs)
	if err != nil {
		return err
	}
	if len(iov) > 0 {
		sl.msg.Iov = &iov[0]
		sl.msg.SetIovlen(len(iov))
	}
	if len(oob) > 0 {
		sl.msg.Control = &oob[0]
		sl.msg.SetControllen(len(oob))
		sl.keepBytes(oob)
	}
	return nil
}

// Shutdown shuts down part of a full-duplex connection (unix.SHUT_WR ...)
// (IORING_OP_SHUTDOWN, 5.11).
func (t *T) Shutdown(fd, how int) error {
	if t.ex.fb != nil {
		return t.fbShutdown(fd, how)
	}
	s, sl, err := t.start("shutdown", fd)
	if err != nil {
		return err
	}
	if err := sqe.Shutdown(s, fd, how); err != nil {
		return t.abandon(s, sl, "Shutdown", err)
	}
	_, _, err = t.wait(s, sl, "shutdown", fd)
	return err
}
