//go:build linux

package reg

import (
	"runtime"

	"github.com/pure-uring/uring/internal/offheap"
	"github.com/pure-uring/uring/sys"
)

// RegionConfig describes a memory region for RegisterRegion.
type RegionConfig struct {
	// Size is the region's size in bytes: a positive multiple of the page
	// size (4096), up to 1 GiB here.
	Size int
	// Kernel has the kernel allocate the memory, which reg then maps
	// through the ring fd at the offset the kernel returns; otherwise reg
	// maps it off the Go heap and hands it to the kernel
	// (IORING_MEM_REGION_TYPE_USER).
	Kernel bool
	// WaitArgs makes the region the ring's wait arguments
	// (IORING_MEM_REGION_REG_WAIT_ARG): Size/64 - 1 sys.RegWait slots
	// that uring.Ring.SubmitAndWaitReg reads (the kernel reads the last
	// one as the first, so Region.Wait leaves it out). The ring must have
	// been created disabled (uring.WithDisabled) and not be enabled yet.
	WaitArgs bool
}

// RegisterRegion registers a memory region with the ring t:
// io_uring_register_region(3) (liburing 2.9), IORING_REGISTER_MEM_REGION,
// Linux 6.13. A ring has one region (a second answers EBUSY), which lives
// as long as the ring: Free it only after the ring is closed. With
// WaitArgs it is a wait region, as RegisterWaitRegion makes one; without,
// the kernel keeps the memory registered for the requests that read their
// arguments from the ring's region (none in Linux 6.18: the region is the
// ABI's place for them). A Kernel region needs a target with a real fd
// (not WithRegisteredFdOnly, nor after CloseRingFd).
func RegisterRegion(t Target, cfg RegionConfig) (*Region, error) {
	const fn = "RegisterRegion"
	if cfg.Size <= 0 || cfg.Size%pageSize != 0 || cfg.Size > 1<<30 {
		return nil, argErr(fn, "Size", eq(cfg.Size)+" is not a multiple of the page size (4096) in (0, 1 GiB]")
	}
	var flags uint64
	waits := 0
	if cfg.WaitArgs {
		flags = sys.MemRegionRegWaitArg
		waits = cfg.Size / int(sys.SizeOf[sys.RegWait]())
		if lastSlotAliases {
			waits-- // the kernel reads the last slot as slot 0
		}
	}
	if !cfg.Kernel {
		return registerRegion(fn, t, cfg.Size, flags, waits)
	}
	// The register and the mmap through the same fd, held open for both:
	// once the register returns, a concurrent Close could let the number
	// name another ring, whose region we would map.
	var mem []byte
	err := useTarget(t, func(fd int, flag sys.RegisterOp) error {
		mfd := mapFd(t, fd, flag)
		if mfd < 0 {
			return argErr(fn, "t", "has no ring fd to map a kernel region through (WithRegisteredFdOnly, or CloseRingFd)")
		}
		desc := sys.RegionDesc{Size: uint64(cfg.Size)}
		var p runtime.Pinner
		p.Pin(&desc)
		rr := sys.MemRegionReg{RegionUptr: sys.PtrAddr(&desc), Flags: flags}
		_, err := registerOn(t, fd, flag, sys.RegisterMemRegion, &rr, 1)
		p.Unpin()
		if err != nil {
			return err
		}
		// The kernel filled in where to map it.
		mem, err = sys.Mmap(mfd, int64(desc.MmapOffset), cfg.Size)
		return err
	})
	if err != nil {
		return nil, err
	}
	m := &mapping{mem: mem}
	m.refs.Store(1)
	r := &Region{m: m}
	if waits > 0 {
		r.waits = offheap.View[sys.RegWait](mem, 0, waits)
	}
	return r, nil
}

// Memory returns the region's memory, or nil once freed. For a wait
// region it holds the slots Wait returns.
func (r *Region) Memory() []byte {
	if r.freed {
		return nil
	}
	return r.m.mem
}
