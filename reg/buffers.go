//go:build linux

package reg

import (
	"errors"
	"runtime"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// ErrUnregistered is returned by Acquire on a table that was unregistered.
var ErrUnregistered = errors.New("reg: the buffer table is unregistered")

// ErrBuffersInUse is returned by Buffers.Unregister on a kernel before 6.13
// while acquired requests are in flight: those kernels' unregister waits
// until every request using the ring's registered resources has completed,
// which may be never (a read of a pipe nobody writes). Nothing changes;
// unregister after the last Release.
var ErrBuffersInUse = errors.New("reg: buffers in use: before Linux 6.13 the kernel's IORING_UNREGISTER_BUFFERS " +
	"waits for the requests in flight, so Unregister waits for their Release")

// unregisterWaits reports whether the kernel's IORING_UNREGISTER_BUFFERS
// waits for the requests in flight (io_rsrc_ref_quiesce, before 6.13);
// 6.13 drops the table at once and each buffer lives on in the requests
// that hold it. A release that cannot be read counts as old. A variable
// for tests.
var unregisterWaits = func() bool {
	ok, err := uring.KernelAtLeast("6.13")
	return err != nil || !ok
}

const (
	maxRegBuffers = 1 << 14 // IORING_MAX_REG_BUFFERS
	maxBufferSize = 1 << 30 // SZ_1G, the largest registered buffer
)

// BufferConfig describes a table of registered buffers.
type BufferConfig struct {
	Count int  // slots in the table, 1..16384
	Size  int  // bytes per buffer, 1..1 GiB; Count*Size bytes are mapped
	Huge  bool // back the memory with 2 MiB huge pages (needs vm.nr_hugepages)
	// Sparse registers Count empty slots; memory is attached with Update.
	Sparse bool
	// Tags is nil, or one tag per slot (len(Tags) == Count); 0 = no tag.
	// A nonzero tag makes the kernel post a CQE with user_data = tag,
	// res = 0, flags = 0 on the ring's CQ when that slot's buffer is
	// released (see UpdateTagged). An empty slot (Sparse) cannot carry a
	// tag. The application's reaper must tell these CQEs from request
	// CQEs: reserve a user_data range for tags.
	Tags []uint64
}

// slotRange is the part of the mapping a slot covers; n = 0: empty. m is
// the mapping when it is not the table's own (a slot CloneRangeInto put
// there from another table).
type slotRange struct {
	off, n int
	m      *mapping
}

// Buffers is a ring's registered (fixed) buffer table, in memory reg maps
// off the Go heap: the garbage collector never moves or frees it.
//
// Memory lifetime: the kernel keeps its own reference to the pages of every
// buffer a request uses, but the mapping, through which Go code reads the
// data, must outlive every request. Acquire (before submitting a request
// that uses the table) and Release (after its CQE) tie the two: Unregister
// unregisters at once and unmaps only when the last acquired request is
// released (and the last clone is gone). The kernel does not need them: a
// request on a registered buffer works without Acquire. Use them whenever
// Unregister may come while a request is in flight: an unacquired request's
// memory is unmapped under it (Go code never sees its data), and before
// 6.13 Unregister cannot refuse with ErrBuffersInUse, so the kernel's call
// waits for the request.
//
// Acquire, Release, Get and Put are safe for concurrent use, also with
// Unregister. Update, Clone and Unregister are not safe for concurrent use
// with each other or with Buf and Validate (call them from one goroutine).
type Buffers struct {
	t        Target
	m        *mapping
	slots    []slotRange
	inflight atomic.Int64
	unreg    atomic.Bool
	dropped  atomic.Bool
	alloc    indexAlloc
	// extra are the other tables' mappings slots point into (CloneRangeInto),
	// each held until drop.
	extra []*mapping
}

// RegisterBuffers maps cfg.Count*cfg.Size bytes off the Go heap and
// registers them as cfg.Count buffers of cfg.Size bytes
// (IORING_REGISTER_BUFFERS2, Linux 5.13), or as cfg.Count empty slots when
// cfg.Sparse is set (Linux 5.19), with cfg.Tags, if any.
func RegisterBuffers(t Target, cfg BufferConfig) (*Buffers, error) {
	const fn = "RegisterBuffers"
	if cfg.Count <= 0 || cfg.Count > maxRegBuffers {
		return nil, argErr(fn, "Count", eq(cfg.Count)+" is not in [1, 16384]")
	}
	if cfg.Size <= 0 || cfg.Size > maxBufferSize {
		return nil, argErr(fn, "Size", eq(cfg.Size)+" is not in [1, 1 GiB]")
	}
	if err := checkTags(fn, cfg); err != nil {
		return nil, err
	}
	m, err := mapAnon(fn, cfg.Count*cfg.Size, cfg.Huge)
	if err != nil {
		return nil, err
	}
	b := &Buffers{t: t, m: m, slots: make([]slotRange, cfg.Count)}
	rr := sys.RsrcRegister{Nr: uint32(cfg.Count)}
	var iov []unix.Iovec
	if cfg.Sparse {
		rr.Flags = sys.RsrcRegisterSparse
	} else {
		iov = make([]unix.Iovec, cfg.Count)
		for i := range iov {
			b.slots[i] = slotRange{off: i * cfg.Size, n: cfg.Size}
			iov[i].Base = &m.mem[i*cfg.Size]
			iov[i].SetLen(cfg.Size)
		}
	}
	var p runtime.Pinner
	rr.Data = addrOf(&p, iov)
	rr.Tags = addrOf(&p, cfg.Tags)
	_, err = register(t, sys.RegisterBuffers2, &rr, uint32(sys.SizeOf[sys.RsrcRegister]()))
	p.Unpin()
	if err != nil {
		m.put()
		return nil, err
	}
	b.alloc.init(cfg.Count)
	return b, nil
}

// Len returns the number of slots.
func (b *Buffers) Len() int { return len(b.slots) }

// Memory returns the whole mapping (for Update), or nil once unmapped.
func (b *Buffers) Memory() []byte {
	if b.dropped.Load() {
		return nil
	}
	return b.m.mem
}

// Buf returns the memory registered in slot i, or nil when the slot is
// empty, out of range, or the table's memory is already unmapped. The slice
// is valid until the memory is unmapped (see Unregister). A fixed-buffer
// op reads or writes a sub-slice of it, with uint16(i) as its bufIndex
// (sqe.ReadFixed, task's T.ReadFixed); memory outside it is EFAULT.
func (b *Buffers) Buf(i int) []byte {
	if i < 0 || i >= len(b.slots) || b.dropped.Load() {
		return nil
	}
	s := b.slots[i]
	if s.n == 0 {
		return nil
	}
	mem := b.m.mem
	if s.m != nil {
		mem = s.m.mem
	}
	return mem[s.off : s.off+s.n : s.off+s.n]
}

// Validate reports whether a request may use bytes [off, off+n) of slot
// index, before it is submitted: the index is in range, the slot holds
// memory, and the range lies inside it.
func (b *Buffers) Validate(index, off, n int) error {
	const fn = "Buffers.Validate"
	if b.unreg.Load() {
		return ErrUnregistered
	}
	if index < 0 || index >= len(b.slots) {
		return argErr(fn, "index", eq(index)+" is out of range [0, "+itoa(len(b.slots))+")")
	}
	s := b.slots[index]
	if s.n == 0 {
		return argErr(fn, "index", eq(index)+" names an empty slot")
	}
	if off < 0 || n < 0 || off > s.n || n > s.n-off {
		return argErr(fn, "range", "["+itoa(off)+", "+itoa(off)+"+"+itoa(n)+") is outside buffer "+itoa(index)+" of "+itoa(s.n)+" bytes")
	}
	return nil
}

// Update registers mem in slot index (IORING_REGISTER_BUFFERS_UPDATE, Linux
// 5.13), without a tag; nil empties the slot. mem must lie inside Memory().
// A request already using the old buffer keeps it until it completes; the
// old buffer's tag, if any, is posted then (see UpdateTagged).
func (b *Buffers) Update(index int, mem []byte) error {
	return b.update("Buffers.Update", index, mem, 0)
}

// update is Update with the tag of the new buffer (0 = none).
func (b *Buffers) update(fn string, index int, mem []byte, tag uint64) error {
	if b.unreg.Load() {
		return ErrUnregistered
	}
	if index < 0 || index >= len(b.slots) {
		return argErr(fn, "index", eq(index)+" is out of range [0, "+itoa(len(b.slots))+")")
	}
	if mem == nil && tag != 0 {
		return argErr(fn, "tag", "= "+hex(tag)+" is set but mem is nil: an empty slot cannot carry a tag")
	}
	var s slotRange
	iov := make([]unix.Iovec, 1)
	if mem != nil {
		off, ok := b.m.contains(mem)
		if !ok {
			return argErr(fn, "mem", "does not lie inside the table's memory (use Memory())")
		}
		s = slotRange{off: off, n: len(mem)}
		iov[0].Base = &mem[0]
		iov[0].SetLen(len(mem))
	}
	var p runtime.Pinner
	defer p.Unpin()
	up := sys.RsrcUpdate2{Offset: uint32(index), Data: addrOf(&p, iov), Nr: 1}
	if tag != 0 {
		tags := []uint64{tag}
		up.Tags = addrOf(&p, tags)
	}
	if _, err := register(b.t, sys.RegisterBuffersUpdate, &up, uint32(sys.SizeOf[sys.RsrcUpdate2]())); err != nil {
		return err
	}
	b.slots[index] = s
	return nil
}

// Clone registers the same buffers on dst (IORING_REGISTER_CLONE_BUFFERS,
// Linux 6.12). With replace, buffers dst already has are replaced
// (IORING_REGISTER_DST_REPLACE, Linux 6.13; before it, an
// *uring.UnsupportedError); without it dst must have none. The clone
// shares the memory: it is unmapped when the original and every clone are
// unregistered and drained. Tags are not cloned: the clone's slots have
// none, and the original's tags are posted (on the original's ring) when
// the original releases its slots, even while the clone still uses the
// memory.
func (b *Buffers) Clone(dst Target, replace bool) (*Buffers, error) {
	if b.unreg.Load() {
		return nil, ErrUnregistered
	}
	// The whole table: nr = 0 (and no offsets). 6.12's struct has only
	// src_fd and flags, the rest is padding it wants zero; 6.13 added
	// src_off, dst_off and nr, where nr = 0 means every buffer.
	var cb sys.CloneBuffers
	if replace {
		cb.Flags |= sys.RegisterDstReplace
	}
	if err := b.cloneTo(dst, cb); err != nil {
		var re *Error
		if replace && errors.As(err, &re) && (re.Errno() == unix.EINVAL || re.Errno() == unix.EBUSY) && !re.Unsupported {
			if ok, kerr := uring.KernelAtLeast("6.13"); kerr == nil && !ok {
				// 6.12 knows no flag but SRC_REGISTERED, and checks for
				// a table on dst first: EBUSY, or EINVAL for the flag.
				re.Err = &uring.UnsupportedError{Feature: "clone flag IORING_REGISTER_DST_REPLACE", MinimumVersion: "6.13",
					Kernel: uring.KernelRelease(), Err: re.Err}
				re.Unsupported, re.Hint = true, ""
			}
		}
		return nil, err
	}
	b.m.get()
	for _, x := range b.extra {
		x.get()
	}
	c := &Buffers{t: dst, m: b.m, slots: append([]slotRange(nil), b.slots...), extra: append([]*mapping(nil), b.extra...)}
	c.alloc.init(len(c.slots))
	return c, nil
}

// Acquire records a request that will use the table's memory; call it
// before submitting, and Release after the request's CQE. It fails with
// ErrUnregistered once Unregister was called. It is not required to use a
// registered buffer (the kernel holds its pages for the request either
// way); it is what keeps the memory mapped, and Buf's slices valid, until
// Release when Unregister comes while the request is in flight.
func (b *Buffers) Acquire() error {
	b.inflight.Add(1)
	if b.unreg.Load() {
		b.Release()
		return ErrUnregistered
	}
	return nil
}

// Release ends what Acquire started. The last Release after Unregister
// unmaps the memory.
func (b *Buffers) Release() {
	if b.inflight.Add(-1) == 0 && b.unreg.Load() {
		b.drop()
	}
}

// InFlight returns the number of acquired, unreleased requests.
func (b *Buffers) InFlight() int64 { return b.inflight.Load() }

// Unregister drops the ring's buffer table (IORING_UNREGISTER_BUFFERS) and
// unmaps the memory as soon as no acquired request remains (at once when
// none is in flight). Buf and Memory return nil after that. From Linux
// 6.13 each slot with a nonzero tag posts its tag CQE when its buffer is
// released: during the call when no request uses it, else when the last
// one completes; before 6.13 Unregister posts no tags.
//
// With acquired requests in flight (InFlight() > 0) it depends on the
// kernel, and never blocks on them:
//   - Linux 6.13 and later drop the table at once; each buffer lives on in
//     the requests that use it, and the memory stays mapped until the last
//     Release.
//   - Before 6.13 the kernel's unregister waits until every request using
//     the ring's registered files or buffers has completed (and a request
//     may never complete), so Unregister refuses with ErrBuffersInUse and
//     changes nothing: call it again after the last Release. Requests that
//     use the table without Acquire, and requests on registered files, can
//     still make the kernel's call wait until they complete.
//
// After the ring's Close, whose teardown dropped the kernel's table,
// Unregister does the rest: it unmaps the memory (once no acquired request
// remains) and returns nil. Without Unregister the memory stays mapped.
func (b *Buffers) Unregister() error {
	if b.unreg.Load() {
		return ErrUnregistered
	}
	// A closed ring took the kernel's table with it: only the memory is
	// left, on every kernel.
	if b.inflight.Load() > 0 && unregisterWaits() && !targetClosed(b.t) {
		return ErrBuffersInUse
	}
	if _, err := registerNil(b.t, sys.UnregisterBuffers, 0); err != nil && !errors.Is(err, uring.ErrClosed) {
		return err
	}
	b.unreg.Store(true)
	if b.inflight.Load() == 0 {
		b.drop()
	}
	return nil
}

// Unmapped reports whether the memory has been given back.
func (b *Buffers) Unmapped() bool { return b.dropped.Load() }

func (b *Buffers) drop() {
	if b.dropped.CompareAndSwap(false, true) {
		b.m.put()
		for _, x := range b.extra {
			x.put()
		}
	}
}

// Get hands out a free slot index and its memory; the index is not handed
// out again until Put. ok is false when every index is out. The index, as
// uint16(index), is the bufIndex of the fixed-buffer ops on buf.
func (b *Buffers) Get() (index int, buf []byte, ok bool) {
	i, ok := b.alloc.get()
	if !ok {
		return 0, nil, false
	}
	return i, b.Buf(i), true
}

// Put returns an index from Get. Returning an index that is not out is an
// error and changes nothing.
func (b *Buffers) Put(index int) error { return b.alloc.put("Buffers.Put", index) }
