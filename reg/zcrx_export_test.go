//go:build linux

package reg

import (
	"sync/atomic"

	"github.com/pure-uring/uring/internal/offheap"
	"github.com/pure-uring/uring/sys"
)

// ZcrxLive returns the number of zcrx mappings reg holds.
func ZcrxLive() int32 { return zcrxLive.Load() }

// FakeZcrx is the kernel's side of a ZcrxIfq made without a NIC: the
// refill ring's head, tail and entries.
type FakeZcrx struct {
	Q    *ZcrxIfq
	head *uint32
	tail *uint32
	RQEs []sys.ZcrxRQE
}

// SetHead moves the kernel's consumer index, as io_zcrx_ring_refill does.
func (f *FakeZcrx) SetHead(v uint32) { atomic.StoreUint32(f.head, v) }

// Tail returns the tail as published to the kernel.
func (f *FakeZcrx) Tail() uint32 { return atomic.LoadUint32(f.tail) }

// NewFakeZcrx lays out a ZcrxIfq as a successful registration would (head
// at 0, tail at 4, entries at 64 of the refill ring) without the kernel,
// to test the refill ring and CQE decoding on machines without a NIC that
// supports zero-copy receive.
func NewFakeZcrx(entries, areaSize int, token uint64) (*FakeZcrx, error) {
	area, err := zcrxMap("NewFakeZcrx", areaSize, false)
	if err != nil {
		return nil, err
	}
	ring, err := zcrxMap("NewFakeZcrx", pageSize+entries*int(sys.SizeOf[sys.ZcrxRQE]()), false)
	if err != nil {
		zcrxUnmap(area)
		return nil, err
	}
	q := &ZcrxIfq{id: 7, token: token, area: area, ring: ring, mask: uint32(entries - 1),
		head: sys.Uint32At(ring.mem, 0), tail: sys.Uint32At(ring.mem, 4),
		rqes: offheap.View[sys.ZcrxRQE](ring.mem, 64, entries)}
	return &FakeZcrx{Q: q, head: q.head, tail: q.tail, RQEs: q.rqes}, nil
}
