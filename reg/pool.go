//go:build linux

package reg

import (
	"errors"

	"github.com/pure-uring/uring/sys"
)

// ErrNoBuffer is returned by Take for a CQE without IORING_CQE_F_BUFFER: an
// error CQE (ENOBUFS included) or a request that selected no buffer. Nothing
// is handed out and nothing is recycled.
var ErrNoBuffer = errors.New("reg: the CQE carries no buffer (IORING_CQE_F_BUFFER clear)")

// PoolConfig describes a pool of provided buffers.
type PoolConfig struct {
	Group uint16 // buffer group id
	Count int    // buffers, 1..32768; the ring has the next power of two entries
	Size  int    // bytes per buffer, 1..1<<32-1
	// UserMemory, Incremental: see BufRingConfig.
	UserMemory  bool
	Incremental bool
	Huge        bool // back the buffers with 2 MiB huge pages
}

// tracker knows which buffer ids are out (handed to the application) and,
// for incremental rings, how much of each buffer the kernel has consumed.
type tracker struct {
	m     *mapping
	size  int
	out   bitmap
	nOut  int
	off   []uint32 // incremental only
	inc   bool
	count int
}

func newTracker(fn string, cfg PoolConfig, inc bool) (tracker, error) {
	if cfg.Count <= 0 || cfg.Count > MaxBufRingEntries {
		return tracker{}, argErr(fn, "Count", eq(cfg.Count)+" is not in [1, 32768]")
	}
	if cfg.Size <= 0 || uint64(cfg.Size) > 1<<32-1 {
		return tracker{}, argErr(fn, "Size", eq(cfg.Size)+" is not in [1, 1<<32-1]")
	}
	m, err := mapAnon(fn, cfg.Count*cfg.Size, cfg.Huge)
	if err != nil {
		return tracker{}, err
	}
	tr := tracker{m: m, size: cfg.Size, out: newBitmap(cfg.Count), inc: inc, count: cfg.Count}
	if inc {
		tr.off = make([]uint32, cfg.Count)
	}
	return tr, nil
}

func (tr *tracker) buf(bid uint16) []byte {
	o := int(bid) * tr.size
	return tr.m.mem[o : o+tr.size : o+tr.size]
}

// cqeBuffer returns the buffer id a CQE names, checked: ErrNoBuffer without
// IORING_CQE_F_BUFFER, *ArgError for an id out of range or already out.
func (tr *tracker) cqeBuffer(fn string, flags sys.CQEFlags) (uint16, error) {
	if flags&sys.CQEFBuffer == 0 {
		return 0, ErrNoBuffer
	}
	bid := uint16(flags >> sys.CQEBufferShift)
	if int(bid) >= tr.count {
		return 0, argErr(fn, "buffer id", equ(uint64(bid))+" from the CQE is out of range [0, "+itoa(tr.count)+")")
	}
	if tr.out.has(int(bid)) {
		return 0, argErr(fn, "buffer id", equ(uint64(bid))+" from the CQE is already out (handed out twice)")
	}
	return bid, nil
}

// take decodes a CQE's buffer: see BufPool.Take.
func (tr *tracker) take(fn string, res int32, flags sys.CQEFlags) (uint16, []byte, error) {
	bid, err := tr.cqeBuffer(fn, flags)
	if err != nil {
		return 0, nil, err
	}
	n := int(res)
	if n < 0 {
		n = 0
	}
	start := 0
	if tr.inc {
		start = int(tr.off[bid])
	}
	if n > tr.size-start {
		return 0, nil, argErr(fn, "res", eq(int(res))+" runs past buffer "+equ(uint64(bid))+" of "+itoa(tr.size)+" bytes")
	}
	data := tr.buf(bid)[start : start+n : start+n]
	if tr.inc && flags&sys.CQEFBufMore != 0 {
		// The kernel keeps the rest of the buffer in the ring.
		tr.off[bid] += uint32(n)
		return bid, data, nil
	}
	tr.out.set(int(bid))
	tr.nOut++
	return bid, data, nil
}

// give marks bid back in; an id that is not out is an error.
func (tr *tracker) give(fn string, bid uint16) error {
	if int(bid) >= tr.count {
		return argErr(fn, "bid", equ(uint64(bid))+" is out of range [0, "+itoa(tr.count)+")")
	}
	if !tr.out.has(int(bid)) {
		return argErr(fn, "bid", equ(uint64(bid))+" is not out")
	}
	tr.out.clear(int(bid))
	tr.nOut--
	if tr.inc {
		tr.off[bid] = 0
	}
	return nil
}

// BufPool is a provided-buffer ring together with its buffers, in memory
// reg maps off the Go heap, and a record of which buffer ids are out. A
// buffer id is out from the Take of the CQE that delivered it until Put;
// it is never handed out twice, and Put of an id that is not out is an
// error that changes nothing.
//
// Memory lifetime: Close unregisters the ring; the buffers stay mapped
// until every id that is out has been Put. Close only after every request
// that may select from the group has completed.
//
// A BufPool is not safe for concurrent use: use it from the goroutine that
// reaps the CQEs.
type BufPool struct {
	ring   *BufRing
	tr     tracker
	mirror ringMirror // which id the pool wrote at which ring entry, for TakeBundle
	closed bool
}

// NewBufPool maps cfg.Count buffers of cfg.Size bytes, registers a ring for
// cfg.Group and puts every buffer in it (buffer id i is buffer i).
func NewBufPool(t Target, cfg PoolConfig) (*BufPool, error) {
	const fn = "NewBufPool"
	tr, err := newTracker(fn, cfg, cfg.Incremental)
	if err != nil {
		return nil, err
	}
	entries := 1
	for entries < cfg.Count {
		entries <<= 1
	}
	ring, err := RegisterBufRing(t, BufRingConfig{Group: cfg.Group, Entries: entries, UserMemory: cfg.UserMemory, Incremental: cfg.Incremental})
	if err != nil {
		tr.m.put()
		return nil, err
	}
	p := &BufPool{ring: ring, tr: tr, mirror: newRingMirror(entries, cfg.Count)}
	p.fill()
	return p, nil
}

// fill puts every buffer in the ring, buffer id i in entry i after the tail.
func (p *BufPool) fill() {
	for i := 0; i < p.tr.count; i++ {
		_ = p.add(uint16(i), i)
	}
	p.advance(p.tr.count)
}

// add stages buffer bid in the ring entry i places after the tail and
// records it in the mirror.
func (p *BufPool) add(bid uint16, i int) error {
	if err := p.ring.Add(p.tr.buf(bid), bid, i); err != nil {
		return err
	}
	p.mirror.wrote(bid, i)
	return nil
}

// advance publishes n staged entries.
func (p *BufPool) advance(n int) {
	p.ring.Advance(n)
	p.mirror.advance(n)
}

// Ring returns the underlying ring, for Head and Tail: entries added to
// it directly bypass the pool's records of ids and ring entries.
func (p *BufPool) Ring() *BufRing { return p.ring }

// Group returns the buffer group id.
func (p *BufPool) Group() uint16 { return p.ring.group }

// Count returns the number of buffers.
func (p *BufPool) Count() int { return p.tr.count }

// Out returns how many buffer ids are out.
func (p *BufPool) Out() int { return p.tr.nOut }

// IsOut reports whether bid is out.
func (p *BufPool) IsOut(bid uint16) bool { return int(bid) < p.tr.count && p.tr.out.has(int(bid)) }

// Take decodes the buffer of a CQE (res, flags): it returns the buffer id
// and the res bytes the request wrote, and marks the id out. A CQE without
// IORING_CQE_F_BUFFER returns ErrNoBuffer and changes nothing. On an
// incremental ring a CQE with IORING_CQE_F_BUF_MORE returns the next piece
// of a buffer the kernel keeps using; the id is out only with the last
// piece. The slice is valid until Put(bid).
func (p *BufPool) Take(res int32, flags sys.CQEFlags) (bid uint16, data []byte, err error) {
	if p.Unmapped() {
		// Closed with nothing out: the memory a late CQE points into is gone.
		return 0, nil, argErr("BufPool.Take", "pool", "is closed and its buffers are unmapped")
	}
	return p.tr.take("BufPool.Take", res, flags)
}

// Put gives buffer bid back to the kernel (at the ring's tail). An id that
// is not out is an error and changes nothing. After Close, Put only
// releases the id (and unmaps the buffers with the last one).
func (p *BufPool) Put(bid uint16) error {
	if err := p.tr.give("BufPool.Put", bid); err != nil {
		return err
	}
	if p.closed {
		if p.tr.nOut == 0 {
			p.tr.m.put()
		}
		return nil
	}
	if err := p.add(bid, 0); err != nil {
		return err
	}
	p.advance(1)
	return nil
}

// Unmapped reports whether the buffers have been unmapped (closed and no
// id out).
func (p *BufPool) Unmapped() bool { return p.closed && p.tr.nOut == 0 }

// Close unregisters the ring. The buffers are unmapped now when none is
// out, else by the Put of the last one.
func (p *BufPool) Close() error {
	if p.closed {
		return argErr("BufPool.Close", "pool", "is already closed")
	}
	err := p.ring.Unregister()
	p.closed = true
	if p.tr.nOut == 0 {
		p.tr.m.put()
	}
	return err
}
