//go:build linux

package fdio

import (
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Accept4 accepts a connection on the listening socket fd (accept4(2)
// with flags) and returns it with the peer's address (the zero AddrPort
// for families other than AF_INET and AF_INET6) and, for IPv6, the
// address's scope (interface index; 0: none). Unlike unix.Accept4 it
// decodes the address itself: x/sys asks the listener's SO_PROTOCOL with
// one more system call per AF_INET connection, and allocates a Sockaddr.
func Accept4(fd, flags int) (nfd int, peer netip.AddrPort, scope uint32, err error) {
	var rsa unix.RawSockaddrAny
	l := uint32(unix.SizeofSockaddrAny)
	r, _, errno := unix.Syscall6(unix.SYS_ACCEPT4, uintptr(fd), uintptr(unsafe.Pointer(&rsa)), uintptr(unsafe.Pointer(&l)), uintptr(flags), 0, 0)
	if errno != 0 {
		return -1, netip.AddrPort{}, 0, errno
	}
	peer, scope = rawAddrPort(&rsa)
	return int(r), peer, scope, nil
}

// rawAddrPort is the address in an AF_INET or AF_INET6 sockaddr, and
// the IPv6 scope.
func rawAddrPort(rsa *unix.RawSockaddrAny) (netip.AddrPort, uint32) {
	switch rsa.Addr.Family {
	case unix.AF_INET:
		a := (*unix.RawSockaddrInet4)(unsafe.Pointer(rsa))
		p := (*[2]byte)(unsafe.Pointer(&a.Port))
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(p[0])<<8|uint16(p[1])), 0
	case unix.AF_INET6:
		a := (*unix.RawSockaddrInet6)(unsafe.Pointer(rsa))
		p := (*[2]byte)(unsafe.Pointer(&a.Port))
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(p[0])<<8|uint16(p[1])), a.Scope_id
	}
	return netip.AddrPort{}, 0
}
