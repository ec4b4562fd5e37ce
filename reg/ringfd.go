//go:build linux

package reg

import "github.com/pure-uring/uring/sys"

// maxRingFds is IO_RINGFD_REG_MAX, the size of a thread's ring table.
const maxRingFds = 16

// RegisterRingFd registers the ring fd ringFd (of any ring) in the calling
// OS thread's table of registered rings (IORING_REGISTER_RING_FDS, Linux
// 5.18) and returns the index the kernel chose. The table is per thread:
// the index works only from that thread, so call runtime.LockOSThread
// first and keep it locked while the index is in use. uring.New's
// WithRegisteredRingFd does this for a ring's own fd.
func RegisterRingFd(t Target, ringFd int) (int, error) {
	if ringFd < 0 || ringFd > 1<<31-1 {
		return 0, argErr("RegisterRingFd", "ringFd", eq(ringFd)+" is not an fd")
	}
	up := sys.RsrcUpdate{Offset: ^uint32(0), Data: uint64(ringFd)} // offset -1: pick a free index
	if _, err := register(t, sys.RegisterRingFds, &up, 1); err != nil {
		return 0, err
	}
	return int(up.Offset), nil
}

// UnregisterRingFd removes index from the calling thread's table
// (IORING_UNREGISTER_RING_FDS).
func UnregisterRingFd(t Target, index int) error {
	if index < 0 || index >= maxRingFds {
		return argErr("UnregisterRingFd", "index", eq(index)+" is not in [0, 16)")
	}
	up := sys.RsrcUpdate{Offset: uint32(index)}
	_, err := register(t, sys.UnregisterRingFds, &up, 1)
	return err
}
