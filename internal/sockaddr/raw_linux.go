package sockaddr

import (
	"encoding/binary"
	"net/netip"

	"golang.org/x/sys/unix"
)

// Put encodes ap as a struct sockaddr_in/_in6 into b (a msghdr's name);
// it returns the length.
func Put(b *[128]byte, ap netip.AddrPort) uint32 {
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

// Get decodes an inet sockaddr of n bytes; the zero AddrPort for others.
func Get(b []byte, n uint32) netip.AddrPort {
	if len(b) < unix.SizeofSockaddrInet6 {
		return netip.AddrPort{}
	}
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
