package task

import (
	"net"
	"strconv"
)

// CurrentPos as an offset reads or writes at the file position.
const CurrentPos int64 = -1

// zoneIndex is the interface index of zone (a name or a number); 0 when
// unknown.
func zoneIndex(zone string) uint32 {
	if zone == "" {
		return 0
	}
	if ifi, err := net.InterfaceByName(zone); err == nil {
		return uint32(ifi.Index)
	}
	n, _ := strconv.ParseUint(zone, 10, 32)
	return uint32(n)
}
