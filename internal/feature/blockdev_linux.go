//go:build linux

package feature

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// sysBlock is where block devices are listed (a variable for tests).
var sysBlock = "/sys/block"

// PolledIO lists the block devices in /sys/block and whether each can
// complete polled I/O, from queue/io_poll, with the reason: the driver's
// poll_queues module parameter where it has one (nvme, virtio_blk), or that
// the driver has no poll queues at all.
func PolledIO() ([]BlockDevice, error) {
	ents, err := os.ReadDir(sysBlock)
	if err != nil {
		return nil, fmt.Errorf("feature: polled I/O: %w", err)
	}
	devs := make([]BlockDevice, 0, len(ents))
	for _, e := range ents {
		devs = append(devs, blockDevice(e.Name()))
	}
	sort.Slice(devs, func(i, j int) bool { return devs[i].Name < devs[j].Name })
	return devs, nil
}

func blockDevice(name string) BlockDevice {
	d := BlockDevice{Name: name}
	b, err := os.ReadFile(filepath.Join(sysBlock, name, "queue", "io_poll"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		d.Reason = "no queue/io_poll: the kernel or driver cannot poll"
		return d
	case err != nil:
		d.Reason = "queue/io_poll unreadable: " + err.Error()
		return d
	}
	drv := driverOf(name)
	param := ""
	if drv != "" {
		if v, err := os.ReadFile(filepath.Join("/sys/module", drv, "parameters", "poll_queues")); err == nil {
			param = fmt.Sprintf("%s.poll_queues=%s", drv, strings.TrimSpace(string(v)))
		}
	}
	if strings.TrimSpace(string(b)) == "1" {
		d.Polled = true
		d.Reason = "poll queues available"
		if param != "" {
			d.Reason += " (" + param + ")"
		}
		return d
	}
	d.Reason = "no poll queues"
	switch {
	case param != "":
		d.Reason += " (" + param + ")"
	case drv != "":
		d.Reason += " (driver " + drv + " has none)"
	}
	return d
}

// driverOf names the driver behind a block device: the target of its
// device/driver link (virtio_blk, nvme), or the name's letters for devices
// without one (nvme namespaces, loop, zram).
func driverOf(name string) string {
	if strings.HasPrefix(name, "nvme") {
		return "nvme"
	}
	if t, err := os.Readlink(filepath.Join(sysBlock, name, "device", "driver")); err == nil {
		return filepath.Base(t)
	}
	return strings.TrimRight(name, "0123456789")
}
