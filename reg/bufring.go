//go:build linux

package reg

import (
	"errors"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/atomicx"
	"github.com/pure-uring/uring/internal/offheap"
	"github.com/pure-uring/uring/sys"
)

// MaxBufRingEntries is the largest provided-buffer ring: the kernel's 16-bit
// head and tail could not tell a full ring of 65536 from an empty one.
const MaxBufRingEntries = 32768

// BufRingConfig describes a provided-buffer ring.
type BufRingConfig struct {
	Group   uint16 // buffer group id (the SQE's buf_group)
	Entries int    // a power of two in [1, 32768]
	// UserMemory maps the ring in memory reg maps itself (Linux 5.19)
	// instead of memory the kernel allocates and reg maps from the ring fd
	// (IOU_PBUF_RING_MMAP, Linux 6.4; not for rings without an fd).
	UserMemory bool
	// Incremental lets the kernel consume a buffer in pieces
	// (IOU_PBUF_RING_INC, Linux 6.12): a CQE with IORING_CQE_F_BUF_MORE
	// leaves the rest of the buffer in the ring.
	Incremental bool
}

// BufRing is a provided-buffer ring (IORING_REGISTER_PBUF_RING): the
// application adds buffers at the tail, the kernel picks them at the head
// for requests that carry IOSQE_BUFFER_SELECT and the ring's group id, and
// reports the buffer id in the CQE (IORING_CQE_F_BUFFER).
//
// BufRing does not own the buffers it carries: they must stay mapped until
// the kernel is done with them. BufPool owns both and is the safe way to use
// a ring. A BufRing is not safe for concurrent use (one producer).
type BufRing struct {
	t       Target
	group   uint16
	entries int
	mask    uint16
	mem     []byte    // the ring's mapping (ours or the kernel's)
	bufs    []sys.Buf // mem viewed as ring entries
	tail    uint16    // the tail as last published, plus nothing staged
	inc     bool
	closed  bool
}

// RegisterBufRing registers a provided-buffer ring for cfg.Group.
func RegisterBufRing(t Target, cfg BufRingConfig) (*BufRing, error) {
	const fn = "RegisterBufRing"
	if err := checkEntries(fn, cfg.Entries); err != nil {
		return nil, err
	}
	size := cfg.Entries * int(sys.SizeOf[sys.Buf]())
	br := sys.BufReg{RingEntries: uint32(cfg.Entries), Bgid: cfg.Group}
	if cfg.Incremental {
		br.Flags |= sys.PbufRingInc
	}
	r := &BufRing{t: t, group: cfg.Group, entries: cfg.Entries, mask: uint16(cfg.Entries - 1), inc: cfg.Incremental}
	if cfg.UserMemory {
		m, err := mapAnon(fn, size, false)
		if err != nil {
			return nil, err
		}
		br.RingAddr = sys.SliceAddr(m.mem)
		if _, err := register(t, sys.RegisterPbufRing, &br, 1); err != nil {
			m.put()
			return nil, err
		}
		r.mem = m.mem
	} else {
		// The register and the mmap through the same fd, held open for
		// both: once the register returns, a concurrent Close could let
		// the number name another ring, whose buffer ring we would map.
		br.Flags |= sys.PbufRingMmap
		err := useTarget(t, func(fd int, flag sys.RegisterOp) error {
			mfd := mapFd(t, fd, flag)
			if mfd < 0 {
				return argErr(fn, "UserMemory", "= false needs a ring fd to map the kernel's ring; this ring has none (use UserMemory)")
			}
			if _, err := registerOn(t, fd, flag, sys.RegisterPbufRing, &br, 1); err != nil {
				return err
			}
			mem, err := sys.Mmap(mfd, sys.OffPbufRing|int64(cfg.Group)<<sys.OffPbufShift, size)
			if err != nil {
				un := sys.BufReg{Bgid: cfg.Group}
				_, _ = registerOn(t, fd, flag, sys.UnregisterPbufRing, &un, 1)
				return err
			}
			r.mem = mem
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	r.bufs = offheap.View[sys.Buf](r.mem, 0, cfg.Entries)
	return r, nil
}

func checkEntries(fn string, n int) error {
	if n <= 0 || n > MaxBufRingEntries {
		return argErr(fn, "Entries", eq(n)+" is not in [1, 32768]")
	}
	if n&(n-1) != 0 {
		return argErr(fn, "Entries", eq(n)+" is not a power of two")
	}
	return nil
}

// Group returns the buffer group id.
func (r *BufRing) Group() uint16 { return r.group }

// Entries returns the ring size.
func (r *BufRing) Entries() int { return r.entries }

// Incremental reports whether the ring was registered with IOU_PBUF_RING_INC.
func (r *BufRing) Incremental() bool { return r.inc }

// Tail returns the tail as last published by Advance.
func (r *BufRing) Tail() uint16 { return r.tail }

// ringIndex returns the entry i places after tail, wrapped to the ring; ok
// is false when i is not in [0, entries). tail wraps at 1<<16 like the
// kernel's; entries ≤ 32768 divides 1<<16, so the masked index stays right
// across the wrap.
func ringIndex(tail uint16, i int, mask uint16) (uint16, bool) {
	if i < 0 || i > int(mask) {
		return 0, false
	}
	return (tail + uint16(i)) & mask, true
}

// Add stages buf as buffer bid in the entry i places after the tail; it is
// invisible to the kernel until Advance. buf must stay mapped (off the Go
// heap, or pinned) until the kernel hands the buffer back.
func (r *BufRing) Add(buf []byte, bid uint16, i int) error {
	if r.closed {
		return argErr("BufRing.Add", "ring", "is unregistered")
	}
	if uint64(len(buf)) > 1<<32-1 {
		return argErr("BufRing.Add", "len(buf)", eq(len(buf))+" exceeds 32 bits")
	}
	idx, ok := ringIndex(r.tail, i, r.mask)
	if !ok {
		return argErr("BufRing.Add", "i", eq(i)+" is not in [0, "+itoa(r.entries)+")")
	}
	// Write the fields one by one: Resv of entry 0 is the shared tail.
	e := &r.bufs[idx]
	e.Addr = sys.SliceAddr(buf)
	e.Len = uint32(len(buf))
	e.Bid = bid
	return nil
}

// Advance publishes n staged entries to the kernel.
func (r *BufRing) Advance(n int) {
	if r.closed || n <= 0 {
		return
	}
	r.tail += uint16(n)
	// Release store: pairs with the kernel's smp_load_acquire(&br->tail) in
	// io_ring_buffer_select/io_ring_buffers_peek, so the entries written by
	// Add are visible before the new tail is.
	atomicx.StoreRelease16(&r.bufs[0].Resv, r.tail)
}

// Recycle adds buf as bid at the tail and publishes it.
func (r *BufRing) Recycle(buf []byte, bid uint16) error {
	if err := r.Add(buf, bid, 0); err != nil {
		return err
	}
	r.Advance(1)
	return nil
}

// Head returns the kernel's head of the ring (IORING_REGISTER_PBUF_STATUS,
// Linux 6.8): entries in [Head, Tail) are still available to the kernel.
func (r *BufRing) Head() (uint16, error) {
	st := sys.BufStatus{BufGroup: uint32(r.group)}
	if _, err := register(r.t, sys.RegisterPbufStatus, &st, 1); err != nil {
		return 0, err
	}
	return uint16(st.Head), nil
}

// Unregister removes the ring (IORING_UNREGISTER_PBUF_RING) and unmaps it.
// Requests that select from the group after this fail with ENOBUFS. After
// the io_uring's Close, which dropped the kernel's side, it only unmaps
// (and returns nil).
func (r *BufRing) Unregister() error {
	if r.closed {
		return argErr("BufRing.Unregister", "ring", "is already unregistered")
	}
	if err := r.unregister(); err != nil && !errors.Is(err, uring.ErrClosed) {
		return err
	}
	r.closed = true
	r.bufs = nil
	mem := r.mem
	r.mem = nil
	return sys.Munmap(mem)
}

func (r *BufRing) unregister() error {
	br := sys.BufReg{Bgid: r.group}
	_, err := register(r.t, sys.UnregisterPbufRing, &br, 1)
	return err
}
