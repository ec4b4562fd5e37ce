//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package sockaddr

import (
	"net/netip"

	"golang.org/x/sys/unix"
)

// ToAddrPort is the address of an AF_INET or AF_INET6 sockaddr (the zero
// AddrPort for others).
func ToAddrPort(sa unix.Sockaddr) netip.AddrPort {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port))
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(a.Port))
	}
	return netip.AddrPort{}
}

// FromAddrPort is the sockaddr of ap: AF_INET for an IPv4 address,
// AF_INET6 (with the zone's scope id) otherwise.
func FromAddrPort(ap netip.AddrPort) unix.Sockaddr {
	if a := ap.Addr(); a.Is4() {
		return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: a.As4()}
	}
	return &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16(), ZoneId: ZoneIndex(ap.Addr().Zone())}
}
