//go:build linux

package goio

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/internal/sockaddr"
)

// PacketConn is a net.PacketConn for datagrams (udp, udp4, udp6,
// unixgram) whose ReadFrom and WriteTo are recvmsg(2) and sendmsg(2) from
// the calling goroutine, waiting for readiness in Go's netpoller as net's
// do (with task.WithRingConnWaits: io_uring RECVMSG and SENDMSG (5.3) on
// one executor), for ordinary goroutines. Deadlines and Close interrupt
// them as they do a Conn's. It also has *net.UDPConn's
// ReadFromUDPAddrPort and WriteToUDPAddrPort.
type PacketConn struct {
	sock
	family int // the socket's address family
	rm, wm msgBufs
}

// ListenPacket listens on a datagram address as net.ListenPacket does:
// network is udp, udp4, udp6 or unixgram (net makes the socket; every
// receive and send then runs on the runtime). As in net, a unixgram path
// stays after Close.
func (e *Env) ListenPacket(network, address string) (*PacketConn, error) {
	if e == nil {
		return nil, nilReceiver("Env.ListenPacket")
	}
	switch network {
	case "udp", "udp4", "udp6", "unixgram":
	case "tcp", "tcp4", "tcp6", "unix", "unixpacket", "ip", "ip4", "ip6":
		return nil, &net.OpError{Op: "listen", Net: network, Err: argError("Env.ListenPacket", "network", "= "+network+" is not supported (udp, udp4, udp6 or unixgram)")}
	}
	if e.closing() {
		return nil, &net.OpError{Op: "listen", Net: network, Err: net.ErrClosed}
	}
	npc, err := net.ListenPacket(network, address) // net's errors for unknown networks and bad addresses
	if err != nil {
		return nil, err
	}
	laddr := npc.LocalAddr()
	var f *os.File
	switch c := npc.(type) {
	case *net.UDPConn:
		f, err = c.File() // a dup, in blocking mode
	case *net.UnixConn:
		f, err = c.File()
	default:
		err = argError("Env.ListenPacket", "network", "= "+network+" is not a datagram network")
	}
	npc.Close()
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: laddr, Err: err}
	}
	fd, err := fdio.Dup(int(f.Fd())) // ours alone: f's finalizer must not close it
	f.Close()
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: laddr, Err: sysErr("fcntl", err)}
	}
	pc := &PacketConn{family: unix.AF_UNIX}
	if sa, err := fdio.Getsockname(fd); err == nil {
		switch sa.(type) {
		case *unix.SockaddrInet4:
			pc.family = unix.AF_INET
		case *unix.SockaddrInet6:
			pc.family = unix.AF_INET6
		}
	}
	pc.sock.init(e, e.rt.NextExecutor(), fd, network, laddr, nil, false)
	pc.rd.m, pc.wr.m = &pc.rm, &pc.wm
	return pc, nil
}

// recvmsg receives one datagram into b; the sender's sockaddr is left in
// pc.rm.name (length pc.rm.msg.Namelen). The caller holds rmu.
func (pc *PacketConn) recvmsg(b []byte) (int, error) {
	if len(b) > maxIO {
		b = b[:maxIO]
	}
	m := &pc.rm
	m.name = [128]byte{}
	m.setMsg(b, uint32(len(m.name)))
	n, err := pc.io(&pc.rd, "recvmsg", reqRecvmsg, b)
	m.iov.Base = nil // do not keep b reachable
	return n, err
}

// setMsg points the msghdr at b and at the name buffer (namelen bytes of
// it used).
func (m *msgBufs) setMsg(b []byte, namelen uint32) {
	m.msg = unix.Msghdr{Name: &m.name[0], Namelen: namelen, Iov: &m.iov}
	m.msg.SetIovlen(1)
	m.iov = unix.Iovec{}
	if len(b) > 0 {
		m.iov.Base = &b[0]
		m.iov.SetLen(len(b))
	}
}

// ReadFrom receives one datagram into b (the rest of a longer one is
// discarded) and returns its length and sender: a *net.UDPAddr, or a
// *net.UnixAddr (nil for an unnamed Unix sender, as net).
func (pc *PacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	if pc == nil {
		return 0, nil, nilReceiver("PacketConn.ReadFrom")
	}
	pc.rmu.Lock()
	n, err := pc.recvmsg(b)
	var addr net.Addr
	if err == nil {
		addr = getSockaddrAddr(pc.net, pc.rm.name[:], pc.rm.msg.Namelen)
	}
	pc.rmu.Unlock()
	if err != nil {
		return 0, nil, pc.opErr("read", err)
	}
	return n, addr, nil
}

// ReadFromUDPAddrPort is ReadFrom returning the sender as a
// netip.AddrPort (UDP only; it allocates nothing).
func (pc *PacketConn) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	if pc == nil {
		return 0, netip.AddrPort{}, nilReceiver("PacketConn.ReadFromUDPAddrPort")
	}
	if pc.family == unix.AF_UNIX {
		return 0, netip.AddrPort{}, pc.opErr("read", argError("PacketConn.ReadFromUDPAddrPort", "network", "= "+pc.net+" is not udp"))
	}
	pc.rmu.Lock()
	n, err := pc.recvmsg(b)
	var ap netip.AddrPort
	if err == nil {
		ap = sockaddr.Get(pc.rm.name[:], pc.rm.msg.Namelen)
	}
	pc.rmu.Unlock()
	if err != nil {
		return 0, ap, pc.opErr("read", err)
	}
	return n, ap, nil
}

// WriteTo sends b as one datagram to addr: a *net.UDPAddr for udp, a
// *net.UnixAddr for unixgram.
func (pc *PacketConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	if pc == nil {
		return 0, nilReceiver("PacketConn.WriteTo")
	}
	const fn = "PacketConn.WriteTo"
	switch a := addr.(type) {
	case *net.UDPAddr:
		if a != nil && pc.family != unix.AF_UNIX {
			return pc.writeToAddrPort(fn, b, a.AddrPort(), addr)
		}
	case *net.UnixAddr:
		if a != nil && pc.family == unix.AF_UNIX {
			return pc.sendmsg(fn, b, addr, func(name *[128]byte) uint32 { return sockaddr.PutUnix(name, a.Name) })
		}
	}
	want := "*net.UDPAddr"
	if pc.family == unix.AF_UNIX {
		want = "*net.UnixAddr"
	}
	if addr == nil {
		return 0, &net.OpError{Op: "write", Net: pc.net, Source: pc.laddr, Err: argError(fn, "addr", "is nil")}
	}
	return 0, &net.OpError{Op: "write", Net: pc.net, Source: pc.laddr, Addr: addr,
		Err: argError(fn, "addr", fmt.Sprintf("is a %T, not a non-nil %s", addr, want))}
}

// WriteToUDPAddrPort sends b as one datagram to addr (UDP only; it
// allocates nothing).
func (pc *PacketConn) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	if pc == nil {
		return 0, nilReceiver("PacketConn.WriteToUDPAddrPort")
	}
	return pc.writeToAddrPort("PacketConn.WriteToUDPAddrPort", b, addr, nil)
}

func (pc *PacketConn) writeToAddrPort(fn string, b []byte, ap netip.AddrPort, addr net.Addr) (int, error) {
	if pc.family == unix.AF_UNIX {
		return 0, &net.OpError{Op: "write", Net: pc.net, Source: pc.laddr, Addr: addr, Err: argError(fn, "network", "= "+pc.net+" is not udp")}
	}
	if !ap.IsValid() {
		if addr == nil {
			addr = net.UDPAddrFromAddrPort(ap)
		}
		return 0, &net.OpError{Op: "write", Net: pc.net, Source: pc.laddr, Addr: addr, Err: argError(fn, "addr", "is not a valid IP address and port")}
	}
	a := ap.Addr()
	if pc.family == unix.AF_INET {
		if a = a.Unmap(); !a.Is4() {
			return 0, &net.OpError{Op: "write", Net: pc.net, Source: pc.laddr, Addr: net.UDPAddrFromAddrPort(ap),
				Err: argError(fn, "addr", "is not an IPv4 address (the socket is IPv4)")}
		}
	}
	return pc.sendmsg(fn, b, addr, func(name *[128]byte) uint32 { return putInetSockaddr(name, pc.family, a, ap.Port()) })
}

// putInetSockaddr encodes a and port for a socket of family: an IPv4
// address on an IPv6 socket is IPv4-mapped; a zone is the scope id.
func putInetSockaddr(b *[128]byte, family int, a netip.Addr, port uint16) uint32 {
	if family == unix.AF_INET {
		return sockaddr.Put(b, netip.AddrPortFrom(a, port))
	}
	*b = [128]byte{}
	binary.NativeEndian.PutUint16(b[0:], unix.AF_INET6)
	binary.BigEndian.PutUint16(b[2:], port)
	a16 := a.As16()
	copy(b[8:24], a16[:])
	binary.NativeEndian.PutUint32(b[24:], sockaddr.ZoneIndex(a.Zone()))
	return unix.SizeofSockaddrInet6
}

// sendmsg sends b to the address put writes into the name buffer.
func (pc *PacketConn) sendmsg(fn string, b []byte, addr net.Addr, put func(*[128]byte) uint32) (int, error) {
	if len(b) > maxIO {
		return 0, &net.OpError{Op: "write", Net: pc.net, Source: pc.laddr, Addr: addr, Err: syscall.EMSGSIZE}
	}
	pc.wmu.Lock()
	m := &pc.wm
	namelen := put(&m.name)
	if namelen == 0 {
		pc.wmu.Unlock()
		return 0, &net.OpError{Op: "write", Net: pc.net, Source: pc.laddr, Addr: addr, Err: argError(fn, "addr", "is not a valid Unix socket name")}
	}
	m.setMsg(b, namelen)
	n, err := pc.io(&pc.wr, "sendmsg", reqSendmsg, b)
	m.iov.Base = nil
	pc.wmu.Unlock()
	if err != nil {
		if addr == nil {
			addr = getSockaddrAddr(pc.net, m.name[:], namelen)
		}
		return n, &net.OpError{Op: "write", Net: pc.net, Source: pc.laddr, Addr: addr, Err: err}
	}
	return n, nil
}

// Close interrupts receives and sends in flight and closes the socket.
func (pc *PacketConn) Close() error {
	if pc == nil {
		return nilReceiver("PacketConn.Close")
	}
	if err := pc.close(nil, nil); err != nil {
		return pc.opErr("close", err)
	}
	return nil
}

// LocalAddr returns the local address (*net.UDPAddr or *net.UnixAddr).
func (pc *PacketConn) LocalAddr() net.Addr {
	if pc == nil {
		return nil
	}
	return pc.laddr
}

// SetDeadline sets both deadlines; a wait in flight sees the new one.
func (pc *PacketConn) SetDeadline(t time.Time) error {
	if pc == nil {
		return nilReceiver("PacketConn.SetDeadline")
	}
	return pc.setDeadlines(t, true, true)
}

// SetReadDeadline sets the deadline of ReadFrom.
func (pc *PacketConn) SetReadDeadline(t time.Time) error {
	if pc == nil {
		return nilReceiver("PacketConn.SetReadDeadline")
	}
	return pc.setDeadlines(t, true, false)
}

// SetWriteDeadline sets the deadline of WriteTo.
func (pc *PacketConn) SetWriteDeadline(t time.Time) error {
	if pc == nil {
		return nilReceiver("PacketConn.SetWriteDeadline")
	}
	return pc.setDeadlines(t, false, true)
}

// SetReadBuffer sets the socket's receive buffer size (SO_RCVBUF).
func (pc *PacketConn) SetReadBuffer(bytes int) error {
	if pc == nil {
		return nilReceiver("PacketConn.SetReadBuffer")
	}
	return pc.setBuffer("PacketConn.SetReadBuffer", unix.SO_RCVBUF, bytes)
}

// SetWriteBuffer sets the socket's send buffer size (SO_SNDBUF).
func (pc *PacketConn) SetWriteBuffer(bytes int) error {
	if pc == nil {
		return nilReceiver("PacketConn.SetWriteBuffer")
	}
	return pc.setBuffer("PacketConn.SetWriteBuffer", unix.SO_SNDBUF, bytes)
}

// SyscallConn returns a raw connection, as net.UDPConn's does (see
// Conn.SyscallConn).
func (pc *PacketConn) SyscallConn() (syscall.RawConn, error) {
	if pc == nil {
		return nil, nilReceiver("PacketConn.SyscallConn")
	}
	return &rawConn{s: &pc.sock}, nil
}
