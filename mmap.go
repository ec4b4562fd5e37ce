package uring

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/pure-uring/uring/sys"
)

// ErrBadOffsets: the kernel returned ring offsets that do not fit the ring
// (a kernel this package does not understand); nothing was mapped past them.
var ErrBadOffsets = errors.New("uring: ring offsets out of range")

// ringSizes returns the byte sizes of the SQ ring, the CQ ring and the SQE
// array the kernel's params describe.
func ringSizes(p *sys.Params) (sqRing, cqRing, sqes uint64) {
	cqeSize, sqeSize := uint64(16), uint64(64)
	if p.Flags&sys.SetupCQE32 != 0 {
		cqeSize = 32
	}
	if p.Flags&sys.SetupSQE128 != 0 {
		sqeSize = 128
	}
	sqRing = uint64(p.SQOff.Array) + uint64(p.SQEntries)*4
	cqRing = uint64(p.CQOff.CQEs) + uint64(p.CQEntries)*cqeSize
	if p.Features&sys.FeatSingleMmap != 0 {
		sqRing = max(sqRing, cqRing)
		cqRing = sqRing
	}
	return sqRing, cqRing, uint64(p.SQEntries) * sqeSize
}

// CheckOffsets validates the offsets in p against the ring sizes they imply
// (sqLen and cqLen bytes mapped), so nothing is read or written outside the
// mappings. It is exported for fuzzing and for tools that map rings.
func CheckOffsets(p *sys.Params, sqLen, cqLen uint64) error {
	if p.SQEntries == 0 || p.SQEntries&(p.SQEntries-1) != 0 || p.SQEntries > MaxEntries {
		return fmt.Errorf("%w: sq_entries = %d", ErrBadOffsets, p.SQEntries)
	}
	if p.CQEntries == 0 || p.CQEntries&(p.CQEntries-1) != 0 || p.CQEntries > MaxCQEntries {
		return fmt.Errorf("%w: cq_entries = %d", ErrBadOffsets, p.CQEntries)
	}
	word := func(name string, off uint32, limit uint64) error {
		if off%4 != 0 || uint64(off)+4 > limit {
			return fmt.Errorf("%w: %s = %d (ring is %d bytes)", ErrBadOffsets, name, off, limit)
		}
		return nil
	}
	s, c := &p.SQOff, &p.CQOff
	for _, w := range []struct {
		name  string
		off   uint32
		limit uint64
	}{
		{"sq_off.head", s.Head, sqLen}, {"sq_off.tail", s.Tail, sqLen},
		{"sq_off.ring_mask", s.RingMask, sqLen}, {"sq_off.ring_entries", s.RingEntries, sqLen},
		{"sq_off.flags", s.Flags, sqLen}, {"sq_off.dropped", s.Dropped, sqLen},
		{"cq_off.head", c.Head, cqLen}, {"cq_off.tail", c.Tail, cqLen},
		{"cq_off.ring_mask", c.RingMask, cqLen}, {"cq_off.ring_entries", c.RingEntries, cqLen},
		{"cq_off.overflow", c.Overflow, cqLen}, {"cq_off.flags", c.Flags, cqLen},
	} {
		if err := word(w.name, w.off, w.limit); err != nil {
			return err
		}
	}
	cqeSize := uint64(16)
	if p.Flags&sys.SetupCQE32 != 0 {
		cqeSize = 32
	}
	if c.CQEs%8 != 0 || uint64(c.CQEs)+uint64(p.CQEntries)*cqeSize > cqLen {
		return fmt.Errorf("%w: cq_off.cqes = %d with %d entries (ring is %d bytes)", ErrBadOffsets, c.CQEs, p.CQEntries, cqLen)
	}
	if p.Flags&sys.SetupNoSQArray == 0 && (s.Array%4 != 0 || uint64(s.Array)+uint64(p.SQEntries)*4 > sqLen) {
		return fmt.Errorf("%w: sq_off.array = %d with %d entries (ring is %d bytes)", ErrBadOffsets, s.Array, p.SQEntries, sqLen)
	}
	return nil
}

// mapRings maps (or, with NO_MMAP, takes from life.regions) the rings and
// points the queues at them.
func (r *Ring) mapRings() error {
	p := &r.params
	sqLen, cqLen, sqesLen := ringSizes(p)
	var sqRing, cqRing, sqesMem []byte
	if p.Flags&sys.SetupNoMmap != 0 {
		// Our own memory: one region for both rings, one for the SQEs.
		rings, sqes := r.life.regions[0], r.life.regions[1]
		if uint64(len(rings)) < max(sqLen, cqLen) || uint64(len(sqes)) < sqesLen {
			return fmt.Errorf("%w: rings need %d+%d bytes, %d+%d allocated", ErrBadOffsets, max(sqLen, cqLen), sqesLen, len(rings), len(sqes))
		}
		sqRing, cqRing, sqesMem = rings, rings, sqes
		sqLen, cqLen = uint64(len(rings)), uint64(len(rings))
	} else {
		if err := CheckOffsets(p, sqLen, cqLen); err != nil {
			return err
		}
		var err error
		if sqRing, err = r.mmap(sys.OffSQRing, sqLen); err != nil {
			return err
		}
		cqRing = sqRing
		if p.Features&sys.FeatSingleMmap == 0 {
			if cqRing, err = r.mmap(sys.OffCQRing, cqLen); err != nil {
				return err
			}
		}
		if sqesMem, err = r.mmap(sys.OffSQEs, sqesLen); err != nil {
			return err
		}
	}
	if err := CheckOffsets(p, sqLen, cqLen); err != nil {
		return err
	}
	r.pointQueues(sqRing, cqRing, sqesMem)
	return nil
}

func (r *Ring) mmap(off int64, length uint64) ([]byte, error) {
	b, err := sys.Mmap(r.life.fd, off, int(length))
	if err != nil {
		return nil, err
	}
	r.life.regions = append(r.life.regions, b)
	return b, nil
}

// pointQueues sets the queue pointers into mapped memory whose offsets
// CheckOffsets accepted.
func (r *Ring) pointQueues(sqRing, cqRing, sqesMem []byte) {
	p := &r.params
	s, c := &p.SQOff, &p.CQOff
	r.sq.head = sys.Uint32At(sqRing, s.Head)
	r.sq.tail = sys.Uint32At(sqRing, s.Tail)
	r.sq.flags = sys.Uint32At(sqRing, s.Flags)
	r.sq.dropped = sys.Uint32At(sqRing, s.Dropped)
	r.sq.mask = *sys.Uint32At(sqRing, s.RingMask)
	r.sq.entries = *sys.Uint32At(sqRing, s.RingEntries)
	if p.Flags&sys.SetupSQE128 != 0 {
		r.sq.shift = 1
	}
	r.sq.sqes = sys.SQEsAt(sqesMem, 0, p.SQEntries<<r.sq.shift)
	if p.Flags&sys.SetupNoSQArray == 0 {
		// Identity index array, set once: SQE i is slot i.
		array := sys.Uint32sAt(sqRing, s.Array, p.SQEntries)
		for i := range array {
			array[i] = uint32(i)
		}
	}
	r.cq.head = sys.Uint32At(cqRing, c.Head)
	r.cq.tail = sys.Uint32At(cqRing, c.Tail)
	r.cq.flags = sys.Uint32At(cqRing, c.Flags)
	r.cq.overflow = sys.Uint32At(cqRing, c.Overflow)
	r.cq.mask = *sys.Uint32At(cqRing, c.RingMask)
	r.cq.entries = *sys.Uint32At(cqRing, c.RingEntries)
	if p.Flags&sys.SetupCQE32 != 0 {
		r.cq.shift = 1
	}
	r.cq.mixed = p.Flags&sys.SetupCQEMixed != 0
	r.cq.cqes = sys.CQEsAt(cqRing, c.CQEs, p.CQEntries<<r.cq.shift)
	// Pick up where the kernel is (0 on a new ring; not after a resize).
	r.sq.sqeHead = *r.sq.tail
	r.sq.sqeTail = r.sq.sqeHead
}

// allocUserRings maps the memory a NO_MMAP ring lives in, sized from the
// entries the kernel will pick, and tells the kernel where it is.
func (r *Ring) allocUserRings(entries uint32, c *config) error {
	sq := roundPow2(min(entries, MaxEntries))
	cq := 2 * sq
	if c.flags&sys.SetupCQSize != 0 {
		cq = roundPow2(min(c.cqEntries, MaxCQEntries))
	}
	cqeSize, sqeSize := uint64(16), uint64(64)
	if c.flags&sys.SetupCQE32 != 0 {
		cqeSize = 32
	}
	if c.flags&sys.SetupSQE128 != 0 {
		sqeSize = 128
	}
	// struct io_rings is under 1 KiB; then the CQEs, a cache line, the SQ array.
	ringsLen := pageRound(1024 + uint64(cq)*cqeSize + 64 + uint64(sq)*4)
	rings, err := sys.MmapAnon(int(ringsLen), false)
	if err != nil {
		return err
	}
	r.life.regions = append(r.life.regions, rings)
	sqes, err := sys.MmapAnon(int(pageRound(uint64(sq)*sqeSize)), false)
	if err != nil {
		r.life.release()
		return err
	}
	r.life.regions = append(r.life.regions, sqes)
	r.params.CQOff.UserAddr = sys.SliceAddr(rings)
	r.params.SQOff.UserAddr = sys.SliceAddr(sqes)
	return nil
}

func roundPow2(n uint32) uint32 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len32(n-1)
}

func pageRound(n uint64) uint64 { return (n + 4095) &^ 4095 }
