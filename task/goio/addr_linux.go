//go:build linux

package goio

import (
	"encoding/binary"
	"net"
	"net/netip"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/internal/sockaddr"
)

// Addresses as net reports them: a *net.TCPAddr, *net.UDPAddr or
// *net.UnixAddr (Net "unix" or "unixgram"); an unnamed Unix socket is "@"
// (what getsockname answers, decoded as Go's syscall package does).

func isTCP(network string) bool {
	return network == "tcp" || network == "tcp4" || network == "tcp6"
}

func isUDP(network string) bool {
	return network == "udp" || network == "udp4" || network == "udp6"
}

// inetAddr is ap as the net.Addr of network.
func inetAddr(network string, ap netip.AddrPort) net.Addr {
	if isUDP(network) {
		return net.UDPAddrFromAddrPort(ap)
	}
	return net.TCPAddrFromAddrPort(ap)
}

// sockaddrAddr is sa as the net.Addr of network (nil for nil).
func sockaddrAddr(network string, sa unix.Sockaddr) net.Addr {
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return inetAddr(network, netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port)))
	case *unix.SockaddrInet6:
		a := netip.AddrFrom16(sa.Addr).WithZone(sockaddr.ZoneName(sa.ZoneId))
		return inetAddr(network, netip.AddrPortFrom(a, uint16(sa.Port)))
	case *unix.SockaddrUnix:
		return &net.UnixAddr{Name: sa.Name, Net: network}
	}
	return nil
}

// localAddr is fd's address (getsockname(2)) as the net.Addr of network.
func localAddr(fd int, network string) (net.Addr, error) {
	sa, err := fdio.Getsockname(fd)
	if err != nil {
		return nil, sysErr("getsockname", err)
	}
	return sockaddrAddr(network, sa), nil
}

// peerAddr is fd's peer (getpeername(2)) as the net.Addr of network.
func peerAddr(fd int, network string) (net.Addr, error) {
	sa, err := fdio.Getpeername(fd)
	if err != nil {
		return nil, sysErr("getpeername", err)
	}
	return sockaddrAddr(network, sa), nil
}

// getSockaddrAddr decodes the sockaddr of n bytes in b (a msghdr's name)
// as the net.Addr of network; nil when there is none (an unnamed Unix
// sender, as net reports it).
func getSockaddrAddr(network string, b []byte, n uint32) net.Addr {
	if n < 2 || int(n) > len(b) {
		return nil
	}
	switch binary.NativeEndian.Uint16(b[0:]) {
	case unix.AF_INET, unix.AF_INET6:
		ap := sockaddr.Get(b, n)
		if !ap.IsValid() {
			return nil
		}
		if binary.NativeEndian.Uint16(b[0:]) == unix.AF_INET6 {
			ap = netip.AddrPortFrom(ap.Addr().WithZone(sockaddr.ZoneName(binary.NativeEndian.Uint32(b[24:]))), ap.Port())
		}
		return inetAddr(network, ap)
	case unix.AF_UNIX:
		if name := sockaddr.GetUnix(b, n); name != "" {
			return &net.UnixAddr{Name: name, Net: network}
		}
	}
	return nil
}
