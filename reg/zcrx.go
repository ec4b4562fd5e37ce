//go:build linux

package reg

import (
	"errors"
	"net"
	"runtime"
	"sync/atomic"

	"github.com/pure-uring/uring/internal/atomicx"
	"github.com/pure-uring/uring/internal/offheap"
	"github.com/pure-uring/uring/sys"
)

// MaxZcrxRefillEntries is the largest zero-copy receive refill ring the
// kernel accepts (IO_RQ_MAX_ENTRIES) without IORING_SETUP_CLAMP.
const MaxZcrxRefillEntries = 32768

// MaxZcrxAreaSize is the largest receive area the kernel accepts (1 GiB,
// io_validate_user_buf_range).
const MaxZcrxAreaSize = 1 << 30

// ErrZcrxRefillFull is returned by ZcrxIfq.Recycle when every refill ring
// entry is still waiting for the kernel, which takes them when the NIC
// needs buffers for the queue.
var ErrZcrxRefillFull = errors.New("reg: the zcrx refill ring is full (the kernel takes entries when the rx queue next needs buffers)")

// ZcrxConfig describes a zero-copy receive interface queue.
type ZcrxConfig struct {
	// Interface names the network interface ("eth0"); when it is "",
	// IfIndex gives the interface index instead.
	Interface string
	IfIndex   int
	// RxQueue is the hardware rx queue bound to the ring. The NIC must
	// have header split (ethtool -G IF tcp-data-split on) and steer the
	// flows to receive to this queue (ethtool -N / -X).
	RxQueue int
	// AreaSize is the bytes of memory packets are received into, in
	// (0, 1 GiB]; rounded up to the page (or huge page) size.
	AreaSize int
	// HugePages maps the area with 2 MiB pages.
	HugePages bool
	// RefillEntries is the size of the refill ring through which buffers
	// go back to the kernel: a power of two in [1, 32768].
	RefillEntries int
}

// ZcrxIfq is a registered zero-copy receive interface queue
// (IORING_REGISTER_ZCRX_IFQ, Linux 6.15): a hardware rx queue of a NIC
// whose payloads land in an area of memory reg mapped, and a refill ring
// through which the application hands received buffers back.
//
// Receive with sqe.RecvZC(s, fd, n, flags, ifq.ID()) on a TCP socket whose
// flows the NIC steers to the queue; each CQE32 (res = bytes) carries a
// sys.ZcrxCQE in its extras: Data returns the bytes, Recycle gives them
// back once read. The kernel has no unregister: the queue lives as long as
// the ring. A ZcrxIfq is not safe for concurrent use (one consumer).
type ZcrxIfq struct {
	id      uint32
	ifIndex int
	rxq     int
	token   uint64 // area token: area id << sys.ZcrxAreaShift
	area    *mapping
	ring    *mapping
	head    *uint32 // the kernel's consumer index
	tail    *uint32 // ours
	rqes    []sys.ZcrxRQE
	mask    uint32
	ntail   uint32 // the tail as last published
	freed   bool
}

// zcrxLive counts the mappings reg holds for zero-copy receive (areas and
// refill rings), for tests.
var zcrxLive atomic.Int32

// setupFlagsTarget is a Target that knows its setup flags; *uring.Ring is
// one.
type setupFlagsTarget interface {
	SetupFlags() sys.SetupFlags
}

// RegisterZcrxIfq binds rx queue cfg.RxQueue of a network interface to
// the ring t for zero-copy receive. The kernel requires:
//   - CAP_NET_ADMIN (EPERM otherwise);
//   - a ring with IORING_SETUP_DEFER_TASKRUN (so SINGLE_ISSUER) and
//     IORING_SETUP_CQE32 or CQE_MIXED (checked here when t knows its
//     setup flags, EINVAL from the kernel otherwise);
//   - a NIC driver with queue management for memory providers, header
//     split enabled, and a queue in range: a virtual interface (lo, veth,
//     ifb, …) or a driver without the API answers EOPNOTSUPP, a queue out
//     of range ERANGE, header split off EINVAL.
//
// Each refusal by the kernel is an *Error whose hint names the interface
// and the cause; a bad argument is an *ArgError.
func RegisterZcrxIfq(t Target, cfg ZcrxConfig) (*ZcrxIfq, error) {
	const fn = "RegisterZcrxIfq"
	idx, name, err := zcrxInterface(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.RxQueue < 0 || int64(cfg.RxQueue) >= 1<<32-1 {
		return nil, argErr(fn, "RxQueue", eq(cfg.RxQueue)+" is not in [0, 4294967294]")
	}
	if cfg.AreaSize <= 0 || cfg.AreaSize > MaxZcrxAreaSize {
		return nil, argErr(fn, "AreaSize", eq(cfg.AreaSize)+" is not in [1, 1 GiB]")
	}
	n := cfg.RefillEntries
	if n <= 0 || n > MaxZcrxRefillEntries || n&(n-1) != 0 {
		return nil, argErr(fn, "RefillEntries", eq(n)+" is not a power of two in [1, 32768]")
	}
	if st, ok := t.(setupFlagsTarget); ok {
		f := st.SetupFlags()
		if f&sys.SetupDeferTaskrun == 0 {
			return nil, argErr(fn, "t", "is a ring without IORING_SETUP_DEFER_TASKRUN, which zero-copy receive needs (create it with uring.WithSingleIssuer and uring.WithDeferTaskrun)")
		}
		if f&(sys.SetupCQE32|sys.SetupCQEMixed) == 0 {
			return nil, argErr(fn, "t", "is a ring without IORING_SETUP_CQE32 or CQE_MIXED: RECV_ZC completions are 32-byte CQEs (create it with uring.WithCQE32 or uring.WithCQEMixed)")
		}
	}

	area, err := zcrxMap(fn, cfg.AreaSize, cfg.HugePages)
	if err != nil {
		return nil, err
	}
	// The refill ring: the kernel puts head and tail in the first cache
	// line and the entries after it (io_allocate_rbuf_ring); a page covers
	// any cache line size.
	ring, err := zcrxMap(fn, pageSize+n*int(sys.SizeOf[sys.ZcrxRQE]()), false)
	if err != nil {
		zcrxUnmap(area)
		return nil, err
	}

	ar := sys.ZcrxAreaReg{Addr: sys.SliceAddr(area.mem), Len: uint64(len(area.mem))}
	rd := sys.RegionDesc{UserAddr: sys.SliceAddr(ring.mem), Size: uint64(len(ring.mem)), Flags: sys.MemRegionTypeUser}
	var p runtime.Pinner
	p.Pin(&ar)
	p.Pin(&rd)
	reg := sys.ZcrxIfqReg{
		IfIdx:     uint32(idx),
		IfRxq:     uint32(cfg.RxQueue),
		RqEntries: uint32(n),
		AreaPtr:   sys.PtrAddr(&ar),
		RegionPtr: sys.PtrAddr(&rd),
	}
	_, err = register(t, sys.RegisterZcrxIfq, &reg, 1)
	p.Unpin()
	if err != nil {
		zcrxUnmap(ring)
		zcrxUnmap(area)
		var re *Error
		if errors.As(err, &re) && !re.Unsupported && !re.NotIssuer {
			re.Hint = zcrxHint(re, name, cfg.RxQueue)
		}
		return nil, err
	}

	q := &ZcrxIfq{id: reg.ZcrxID, ifIndex: idx, rxq: cfg.RxQueue, token: ar.RqAreaToken,
		area: area, ring: ring, mask: uint32(n - 1)}
	q.head = sys.Uint32At(ring.mem, reg.Offsets.Head)
	q.tail = sys.Uint32At(ring.mem, reg.Offsets.Tail)
	q.rqes = offheap.View[sys.ZcrxRQE](ring.mem, int(reg.Offsets.RQEs), n)
	if q.head == nil || q.tail == nil || q.rqes == nil {
		// The kernel keeps the pages it pinned until the ring closes;
		// unmapping only drops our view of them.
		zcrxUnmap(ring)
		zcrxUnmap(area)
		return nil, argErr(fn, "offsets", "returned by the kernel (head "+utoa(uint64(reg.Offsets.Head))+
			", tail "+utoa(uint64(reg.Offsets.Tail))+", rqes "+utoa(uint64(reg.Offsets.RQEs))+") do not fit the refill ring")
	}
	q.ntail = atomic.LoadUint32(q.tail)
	return q, nil
}

// zcrxInterface resolves the interface of cfg to an index and a name for
// messages.
func zcrxInterface(cfg ZcrxConfig) (int, string, error) {
	const fn = "RegisterZcrxIfq"
	if cfg.Interface != "" {
		if cfg.IfIndex != 0 {
			return 0, "", argErr(fn, "IfIndex", eq(cfg.IfIndex)+" given with Interface "+cfg.Interface+": give one")
		}
		ifi, err := net.InterfaceByName(cfg.Interface)
		if err != nil {
			return 0, "", argErr(fn, "Interface", "= "+cfg.Interface+": "+err.Error())
		}
		return ifi.Index, ifi.Name, nil
	}
	if cfg.IfIndex <= 0 || cfg.IfIndex > 1<<31-1 {
		return 0, "", argErr(fn, "IfIndex", eq(cfg.IfIndex)+" is not a valid interface index (or set Interface)")
	}
	name := "#" + itoa(cfg.IfIndex)
	if ifi, err := net.InterfaceByIndex(cfg.IfIndex); err == nil {
		name = ifi.Name
	}
	return cfg.IfIndex, name, nil
}

func zcrxMap(fn string, size int, huge bool) (*mapping, error) {
	m, err := mapAnon(fn, size, huge)
	if err == nil {
		zcrxLive.Add(1)
	}
	return m, err
}

func zcrxUnmap(m *mapping) {
	m.put()
	zcrxLive.Add(-1)
}

// ID returns the queue's zcrx id, the ifq argument of sqe.RecvZC.
func (q *ZcrxIfq) ID() uint32 { return q.id }

// IfIndex returns the interface index.
func (q *ZcrxIfq) IfIndex() int { return q.ifIndex }

// RxQueue returns the hardware rx queue.
func (q *ZcrxIfq) RxQueue() int { return q.rxq }

// Area returns the receive area (nil once freed). The kernel writes into
// it; read only the ranges Data returns.
func (q *ZcrxIfq) Area() []byte {
	if q.freed {
		return nil
	}
	return q.area.mem
}

// RefillEntries returns the refill ring size.
func (q *ZcrxIfq) RefillEntries() int { return len(q.rqes) }

// Data returns the bytes a RECV_ZC completion delivered: c.Res bytes at
// the area offset in c's extras. A CQE with res ≤ 0 carries no buffer (an
// error, or the end of the stream) and gets an *ArgError.
func (q *ZcrxIfq) Data(c *sys.CQE32) ([]byte, error) {
	off, err := q.check("ZcrxIfq.Data", c)
	if err != nil {
		return nil, err
	}
	return q.area.mem[off : off+uint64(c.Res) : off+uint64(c.Res)], nil
}

func (q *ZcrxIfq) check(fn string, c *sys.CQE32) (uint64, error) {
	if q.freed {
		return 0, argErr(fn, "ifq", "is freed")
	}
	if c.Res <= 0 {
		return 0, argErr(fn, "c.Res", eq(int(c.Res))+": the CQE carries no buffer")
	}
	z := c.Zcrx()
	if z.Off&sys.ZcrxAreaMask != q.token {
		return 0, argErr(fn, "c", "extras off = "+hex(z.Off)+" name an area other than this queue's ("+hex(q.token)+")")
	}
	off := z.Off &^ sys.ZcrxAreaMask
	if off > uint64(len(q.area.mem)) || uint64(c.Res) > uint64(len(q.area.mem))-off {
		return 0, argErr(fn, "c", "extras off = "+hex(z.Off)+", res = "+itoa(int(c.Res))+" run past the area of "+itoa(len(q.area.mem))+" bytes")
	}
	return off, nil
}

// Recycle gives the buffer of a RECV_ZC completion back to the kernel
// through the refill ring, once its Data is no longer used. Each
// completion must be recycled once; ErrZcrxRefillFull means the kernel
// has not caught up yet (retry after reaping more completions).
func (q *ZcrxIfq) Recycle(c *sys.CQE32) error {
	if _, err := q.check("ZcrxIfq.Recycle", c); err != nil {
		return err
	}
	// Acquire load: pairs with smp_store_release(&rq_ring->head) in
	// io_zcrx_ring_refill, so the entries below head are free to reuse.
	head := atomic.LoadUint32(q.head)
	if q.ntail-head > q.mask {
		return ErrZcrxRefillFull
	}
	e := &q.rqes[q.ntail&q.mask]
	e.Off = c.Zcrx().Off
	e.Len = uint32(c.Res)
	e.Pad = 0
	q.ntail++
	// Release store: pairs with smp_load_acquire(&rq_ring->tail) in
	// io_zcrx_rqring_entries, so the entry is visible before the tail.
	atomicx.StoreRelease32(q.tail, q.ntail)
	return nil
}

// Free unmaps the area and the refill ring. The kernel has no unregister
// and keeps the queue until the ring is closed: call Free only after that.
func (q *ZcrxIfq) Free() error {
	if q.freed {
		return argErr("ZcrxIfq.Free", "ifq", "is already freed")
	}
	q.freed = true
	q.head, q.tail, q.rqes = nil, nil, nil
	zcrxUnmap(q.ring)
	zcrxUnmap(q.area)
	return nil
}
