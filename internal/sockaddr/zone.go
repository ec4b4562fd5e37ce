package sockaddr

import (
	"net"
	"net/netip"
	"strconv"
)

// ZoneIndex is the interface index of zone (a name or a number); 0 when
// unknown.
func ZoneIndex(zone string) uint32 {
	if zone == "" {
		return 0
	}
	if ifi, err := net.InterfaceByName(zone); err == nil {
		return uint32(ifi.Index)
	}
	n, _ := strconv.ParseUint(zone, 10, 32)
	return uint32(n)
}

// ZoneName is the name of interface index i, or its number ("" for 0).
func ZoneName(i uint32) string {
	if i == 0 {
		return ""
	}
	if ifi, err := net.InterfaceByIndex(int(i)); err == nil {
		return ifi.Name
	}
	return strconv.FormatUint(uint64(i), 10)
}

// Zoned is ap with the zone of IPv6 scope (an interface index; 0: none).
func Zoned(ap netip.AddrPort, scope uint32) netip.AddrPort {
	if scope == 0 {
		return ap
	}
	return netip.AddrPortFrom(ap.Addr().WithZone(ZoneName(scope)), ap.Port())
}
