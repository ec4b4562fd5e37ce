//go:build linux

package reg

import (
	"runtime"

	"github.com/pure-uring/uring/internal/offheap"
	"github.com/pure-uring/uring/sys"
)

// Region is a memory region registered with a ring
// (IORING_REGISTER_MEM_REGION, Linux 6.13), in memory reg maps off the Go
// heap. As a wait region it holds sys.RegWait slots: io_uring_enter with
// IORING_ENTER_EXT_ARG_REG (sys.EnterRegWait) reads its wait arguments
// from the slot at a byte offset instead of copying them in each time.
//
// The kernel cannot unregister a region: it lives as long as the ring. Call
// Free only after the ring is closed.
type Region struct {
	m     *mapping
	waits []sys.RegWait
	freed bool
}

// RegisterWaitRegion registers a region of n wait slots
// (IORING_MEM_REGION_REG_WAIT_ARG). The ring must have been created
// disabled (uring.WithDisabled) and not enabled yet; one region per ring.
func RegisterWaitRegion(t Target, n int) (*Region, error) {
	size := n * int(sys.SizeOf[sys.RegWait]())
	if n <= 0 || size > 1<<20 {
		return nil, argErr("RegisterWaitRegion", "n", eq(n)+" is not in [1, 16384]")
	}
	// One slot more than asked for: the kernel reads the region's last
	// slot as slot 0 (see lastSlotAliases).
	return registerRegion("RegisterWaitRegion", t, size+int(sys.SizeOf[sys.RegWait]()), sys.MemRegionRegWaitArg, n)
}

// lastSlotAliases: io_get_ext_arg_reg (Linux 6.13 through 6.18 at least)
// clamps the slot's offset with array_index_nospec(offset, size - 64),
// which maps the offset of the region's last slot, size - 64, to 0: a
// wait on the last slot reads slot 0. So no wait region here exposes its
// last slot.
const lastSlotAliases = true

func registerRegion(fn string, t Target, size int, flags uint64, waits int) (*Region, error) {
	m, err := mapAnon(fn, size, false)
	if err != nil {
		return nil, err
	}
	desc := sys.RegionDesc{UserAddr: sys.SliceAddr(m.mem), Size: uint64(len(m.mem)), Flags: sys.MemRegionTypeUser}
	var p runtime.Pinner
	p.Pin(&desc)
	rr := sys.MemRegionReg{RegionUptr: sys.PtrAddr(&desc), Flags: flags}
	_, err = register(t, sys.RegisterMemRegion, &rr, 1)
	p.Unpin()
	if err != nil {
		m.put()
		return nil, err
	}
	r := &Region{m: m}
	if flags&sys.MemRegionRegWaitArg != 0 {
		r.waits = offheap.View[sys.RegWait](m.mem, 0, waits)
	}
	return r, nil
}

// Len returns the number of wait slots.
func (r *Region) Len() int { return len(r.waits) }

// Wait returns wait slot i for filling, or nil when i is out of range or
// the region was freed.
func (r *Region) Wait(i int) *sys.RegWait {
	if r.freed || i < 0 || i >= len(r.waits) {
		return nil
	}
	return &r.waits[i]
}

// Offset returns the byte offset of wait slot i, the argument of
// sys.EnterRegWait.
func (r *Region) Offset(i int) uint32 { return uint32(i) * uint32(sys.SizeOf[sys.RegWait]()) }

// Free unmaps the region; only after the ring is closed.
func (r *Region) Free() error {
	if r.freed {
		return argErr("Region.Free", "region", "is already freed")
	}
	r.freed = true
	r.waits = nil
	r.m.put()
	return nil
}
