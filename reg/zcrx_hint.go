//go:build linux

package reg

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// zcrxHint explains an IORING_REGISTER_ZCRX_IFQ errno for interface name
// and rx queue rxq, from io_uring/zcrx.c (io_register_zcrx_ifq) and
// net/core/netdev_rx_queue.c (__net_mp_open_rxq) as of Linux 6.18.
func zcrxHint(e *Error, name string, rxq int) string {
	q := "rx queue " + itoa(rxq) + " of " + name
	switch e.Errno() {
	case unix.EPERM:
		return "zero-copy receive needs CAP_NET_ADMIN in the initial user namespace"
	case unix.EINVAL:
		return "zero-copy receive needs a ring with IORING_SETUP_DEFER_TASKRUN and CQE32 or CQE_MIXED, " +
			"and header split on " + name + " (ethtool -G " + name + " tcp-data-split on hds-thresh 0)"
	case unix.ENODEV:
		return "no interface " + name + " in this network namespace"
	case unix.EOPNOTSUPP:
		if name != "" && name[0] != '#' {
			if _, err := os.Stat("/sys/class/net/" + name + "/device"); os.IsNotExist(err) {
				return "interface " + name + " is virtual: it has no hardware rx queue with header split " +
					"(zero-copy receive needs a NIC whose driver supports queue management and tcp-data-split)"
			}
			if drv := netDriver(name); drv != "" {
				return "interface " + name + " (driver " + drv + ") has no hardware rx queue with header split: " +
					"the driver lacks the queue-management API zero-copy receive needs"
			}
		}
		return "interface " + name + " has no hardware rx queue with header split: " +
			"a virtual device, or a driver without the queue-management API zero-copy receive needs"
	case unix.ERANGE:
		return "interface " + name + " has no rx queue " + itoa(rxq) + rxQueueCount(name)
	case unix.EEXIST:
		return q + " already has a memory provider (zcrx or devmem), or an XDP program is attached to " + name
	case unix.EBUSY:
		return q + " is in use by an AF_XDP socket"
	case unix.ENOMEM:
		return "could not pin or account the receive area and refill ring (RLIMIT_MEMLOCK?)"
	case unix.EFAULT:
		return "an address is not mapped, or the area is empty or over 1 GiB"
	}
	return hint(e.Op, e.Errno())
}

// netDriver returns the driver name of interface name from sysfs, or "".
func netDriver(name string) string {
	l, err := os.Readlink("/sys/class/net/" + name + "/device/driver")
	if err != nil {
		return ""
	}
	return filepath.Base(l)
}

// rxQueueCount says how many rx queues sysfs lists for interface name.
func rxQueueCount(name string) string {
	ents, err := os.ReadDir("/sys/class/net/" + name + "/queues")
	if err != nil {
		return ""
	}
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "rx-") {
			n++
		}
	}
	return " (it has " + itoa(n) + ")"
}
