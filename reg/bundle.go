//go:build linux

package reg

import "github.com/pure-uring/uring/sys"

// PoolBuf is one buffer of a BufPool handed out by TakeBundle: its id and
// the bytes the request wrote in it. Data is valid until Put(ID).
type PoolBuf struct {
	ID   uint16
	Data []byte
}

// ringMirror records what the pool wrote where in its ring, so that a
// bundle CQE, which names only its first buffer, can be decoded. Each
// entry the pool publishes gets a sequence number: the ring's tail
// unwrapped to 64 bits (the ring position is its low bits under the mask).
// Sequence numbers, unlike positions, tell an entry from a later one
// written in the same slot: the entry the kernel took at sequence number
// seq is still bidAt[pos(seq)] exactly when seqOf of that id is seq.
type ringMirror struct {
	mask  uint16
	next  uint64   // sequence number of the next entry to publish
	bidAt []uint16 // ring position -> id last written there
	seqOf []uint64 // id -> sequence number of its latest write
}

// newRingMirror makes the mirror of an empty ring.
func newRingMirror(entries, count int) ringMirror {
	return ringMirror{mask: uint16(entries - 1), bidAt: make([]uint16, entries), seqOf: make([]uint64, count)}
}

// pos is the ring position of sequence number seq: the kernel's 16-bit
// head and tail wrap at 1<<16, which the mask (≤ 0x7fff) divides.
func (m *ringMirror) pos(seq uint64) uint16 { return uint16(seq) & m.mask }

// wrote records that bid was written i entries after the tail.
func (m *ringMirror) wrote(bid uint16, i int) {
	seq := m.next + uint64(i)
	p := m.pos(seq)
	m.bidAt[p] = bid
	m.seqOf[bid] = seq
}

// advance records that n entries were published.
func (m *ringMirror) advance(n int) { m.next += uint64(n) }

// bundleLen returns how many buffers of size bytes a bundle of res bytes
// filled: the kernel fills each buffer before the next, so ceil(res/size),
// and at least one (a CQE with IORING_CQE_F_BUFFER names one buffer).
func bundleLen(res int32, size int) int64 {
	n := int64(res)
	if n <= 0 {
		return 1
	}
	return (n + int64(size) - 1) / int64(size)
}

// TakeBundle decodes the CQE (res, flags) of a bundle receive
// (IORING_RECVSEND_BUNDLE, Linux 6.10; sqe.RecvBundle): it appends each
// buffer the CQE filled to dst, in the order the kernel filled them, marks
// their ids out and returns the extended slice. With a dst of enough
// capacity it allocates nothing. Each Data is valid until Put(ID).
//
// The CQE's IORING_CQE_F_BUFFER id is only the first buffer: the kernel
// took consecutive ring entries from it, filled each completely before the
// next, so res bytes span ceil(res/size) buffers (one when res ≤ size,
// res 0 included): full ones, then the remainder. After Puts in another
// order, ring order is not id order; the pool knows which id it wrote at
// each ring position and follows that. A CQE for a single buffer (any
// receive or read that selected from the group) decodes the same way.
//
// Decode a bundle CQE before putting back any buffer that a CQE posted
// after it delivered: that Put may reuse the ring entries this bundle
// took, which the pool then reports as an error rather than guessing.
//
// A CQE without IORING_CQE_F_BUFFER returns ErrNoBuffer (a bundle that
// read nothing, at end of stream, carries none: the kernel keeps the
// buffers in the ring). An id out of range or already out, a res needing
// more buffers than are in the ring, or a walk reaching past the tail (an
// entry the pool has not written yet), an entry the pool has reused since
// the kernel took it, or an id that is out, returns *ArgError. On any error nothing is marked out and dst is returned as it
// was. Incremental pools (PoolConfig.Incremental) are not supported: the
// kernel may end a bundle partway into a buffer it keeps using, which this
// pool does not track; TakeBundle returns *ArgError for them.
//
// A PoolProvideBuffers pool cannot decode bundles and changes nothing: on
// a kernel without them (before 6.10) TakeBundle returns that
// *uring.UnsupportedError, on a later one (a pool made with Mechanism =
// PoolProvideBuffers) an *ArgError: the kernel may append a second
// provided buffer to a bundle, the next in its own list, which the CQE
// does not name. NewBufPool never picks PROVIDE_BUFFERS on a kernel with
// bundles by itself.
func (p *BufPool) TakeBundle(res int32, flags sys.CQEFlags, dst []PoolBuf) ([]PoolBuf, error) {
	const fn = "BufPool.TakeBundle"
	tr := &p.tr
	if tr.inc {
		return dst, argErr(fn, "pool", "is incremental (IOU_PBUF_RING_INC): bundles and incremental consumption together are not supported")
	}
	if p.Unmapped() {
		return dst, argErr(fn, "pool", "is closed and its buffers are unmapped")
	}
	if p.mech == PoolProvideBuffers {
		if p.bundleErr != nil {
			return dst, p.bundleErr
		}
		return dst, argErr(fn, "pool", "uses PROVIDE_BUFFERS: a bundle may fill several provided buffers, taken in the "+
			"kernel's list order, which the CQE does not name (use a buffer ring)")
	}
	bid, err := tr.cqeBuffer(fn, flags)
	if err != nil {
		return dst, err
	}
	k := bundleLen(res, tr.size)
	if avail := int64(tr.count - tr.nOut); k > avail {
		return dst, argErr(fn, "res", eq(int(res))+" spans "+utoa(uint64(k))+" buffers of "+itoa(tr.size)+" bytes; the ring holds "+utoa(uint64(avail)))
	}
	m := &p.mirror
	first := m.seqOf[bid]
	// Validate the whole walk before marking anything out.
	for i := int64(1); i < k; i++ {
		seq := first + uint64(i)
		pos := m.pos(seq)
		at := "ring entry " + utoa(uint64(pos)) + " (" + utoa(uint64(i)) + " after buffer " + utoa(uint64(bid)) + ")"
		if seq >= m.next {
			return dst, argErr(fn, "res", eq(int(res))+" runs past the ring's tail at "+at)
		}
		b := m.bidAt[pos]
		if m.seqOf[b] != seq {
			// The entry was written again, or its id was: by a Put.
			return dst, argErr(fn, "res", eq(int(res))+" reaches "+at+", which the pool has reused since the kernel took it (a Put before this bundle was decoded)")
		}
		if tr.out.has(int(b)) {
			return dst, argErr(fn, "res", eq(int(res))+" reaches buffer "+utoa(uint64(b))+" at "+at+", which is out")
		}
	}
	rest := int(res)
	if rest < 0 {
		rest = 0
	}
	for i := int64(0); i < k; i++ {
		b := m.bidAt[m.pos(first+uint64(i))]
		if i == 0 {
			b = bid // a single buffer needs no walk (its entry may be reused already)
		}
		n := min(rest, tr.size)
		rest -= n
		tr.out.set(int(b))
		tr.nOut++
		dst = append(dst, PoolBuf{ID: b, Data: tr.buf(b)[:n:n]})
	}
	return dst, nil
}
