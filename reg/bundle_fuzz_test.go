//go:build linux

package reg

import (
	"testing"

	"github.com/pure-uring/uring/sys"
)

// localPool is a BufPool on a ring that was never registered, its tail
// starting at tail: the mirror without a kernel.
func localPool(count, entries, size int, tail uint16) *BufPool {
	r := localRing(entries)
	r.tail = tail
	tr := tracker{m: &mapping{mem: make([]byte, count*size)}, size: size, out: newBitmap(count), count: count}
	p := &BufPool{ring: r, tr: tr, mirror: newRingMirror(entries, count)}
	p.mirror.next = uint64(tail)
	p.fill()
	return p
}

// modelCQE is what a model kernel consumed for one bundle.
type modelCQE struct {
	res int32
	ids []uint16 // read from the ring's memory, in ring order
}

// FuzzBufPoolBundle runs a pool against a model kernel that consumes
// fuzzed runs of ring entries from its head (reading the ids the pool
// wrote in the ring's memory) and posts one bundle CQE per run, while the
// application takes CQEs in order or out of order, puts ids back in fuzzed
// order, and feeds garbage CQEs. Checked throughout: the mirror agrees with
// the ring's memory and its position arithmetic with the ring's 16-bit
// tail across the wrap; TakeBundle never returns ids other than those the
// kernel consumed, with the right lengths and memory; in-order takes always
// succeed; a failed take changes nothing; the out count matches the bitmap.
func FuzzBufPoolBundle(f *testing.F) {
	f.Add(uint8(7), false, uint8(63), uint16(0), []byte{0, 3, 0, 4, 1, 0, 1, 0, 2, 2, 2, 0, 0, 7, 1, 0})
	f.Add(uint8(3), true, uint8(5), uint16(65533), []byte{0, 1, 0, 9, 3, 1, 1, 0, 2, 1, 2, 0, 0, 5, 1, 0, 4, 0x42})
	f.Add(uint8(15), false, uint8(1), uint16(65535), []byte{0, 15, 1, 0, 2, 5, 2, 3, 2, 0, 0, 200, 3, 0, 1, 0})
	// Bundle B taken before A and put back rewrites A's entries.
	f.Add(uint8(3), false, uint8(7), uint16(65534), []byte{0, 1, 0, 1, 3, 1, 2, 0, 2, 0, 1, 0})
	f.Fuzz(func(t *testing.T, c uint8, wide bool, s uint8, tail uint16, ops []byte) {
		count := int(c%16) + 1
		entries := 1
		for entries < count {
			entries <<= 1
		}
		if wide {
			entries <<= 1
		}
		size := int(s%64) + 1
		p := localPool(count, entries, size, tail)
		r, m := p.ring, &p.mirror
		khead := tail // the model kernel's head
		var pending []modelCQE
		var held []uint16 // ids out, in the order taken
		strict, corrupt := true, false
		var dst []PoolBuf

		check := func(step int) {
			if uint16(m.next) != r.tail || m.pos(m.next) != r.tail&r.mask {
				t.Fatalf("step %d: mirror next %d, ring tail %d", step, m.next, r.tail)
			}
			// Every entry written in the last lap is mirrored; those the
			// kernel has yet to take hold the latest write of their id.
			for seq := m.next; seq > uint64(tail) && seq+uint64(entries) > m.next; {
				seq--
				pos := m.pos(seq)
				id := m.bidAt[pos]
				if id != r.bufs[pos].Bid || r.bufs[pos].Addr != sys.SliceAddr(p.tr.buf(id)) {
					t.Fatalf("step %d: entry %d (seq %d): mirror id %d, ring id %d", step, pos, seq, id, r.bufs[pos].Bid)
				}
				if inRing := uint16(seq)-khead < r.tail-khead; inRing && !corrupt && m.seqOf[id] != seq {
					t.Fatalf("step %d: entry %d (seq %d) is in the ring, but id %d was last written at %d", step, pos, seq, id, m.seqOf[id])
				}
			}
			outs := 0
			for i := 0; i < count; i++ {
				if p.tr.out.has(i) {
					outs++
				}
			}
			if outs != p.tr.nOut {
				t.Fatalf("step %d: nOut %d, bitmap %d", step, p.tr.nOut, outs)
			}
		}
		take := func(step int, q modelCQE, mustWork bool) {
			flags := sys.CQEFBuffer | sys.CQEFlags(q.ids[0])<<sys.CQEBufferShift
			out := p.tr.nOut
			got, err := p.TakeBundle(q.res, flags, dst[:0])
			if err != nil {
				if mustWork && !corrupt {
					t.Fatalf("step %d: in-order take of %v (res %d): %v", step, q.ids, q.res, err)
				}
				if len(got) != 0 || p.tr.nOut != out {
					t.Fatalf("step %d: failed take changed something", step)
				}
				return
			}
			if corrupt {
				// A garbage take marked ids out that the model kernel
				// still counts as in the ring: nothing to compare with.
				for _, b := range got {
					held = append(held, b.ID)
				}
				return
			}
			if len(got) != len(q.ids) {
				t.Fatalf("step %d: took %d buffers, the kernel consumed %v", step, len(got), q.ids)
			}
			rest := int(q.res)
			for i, b := range got {
				n := min(rest, size)
				rest -= n
				if b.ID != q.ids[i] || len(b.Data) != n {
					t.Fatalf("step %d: buffer %d: id %d len %d, want id %d len %d", step, i, b.ID, len(b.Data), q.ids[i], n)
				}
				if n > 0 && sys.SliceAddr(b.Data) != sys.SliceAddr(p.tr.buf(b.ID)) {
					t.Fatalf("step %d: buffer %d: data is not buffer %d's memory", step, i, b.ID)
				}
				held = append(held, b.ID)
			}
			dst = got
		}

		for step := 0; len(ops) >= 2; step++ {
			op, arg := ops[0], int(ops[1])
			ops = ops[2:]
			switch op % 5 {
			case 0: // the kernel consumes a run of entries for one CQE
				avail := int(r.tail - khead)
				if avail == 0 {
					break
				}
				k := 1 + arg%avail
				q := modelCQE{res: int32((k-1)*size + 1 + arg%size)}
				for i := 0; i < k; i++ {
					q.ids = append(q.ids, r.bufs[(khead+uint16(i))&r.mask].Bid)
				}
				khead += uint16(k)
				pending = append(pending, q)
			case 1: // take the oldest CQE
				if len(pending) > 0 {
					q := pending[0]
					pending = pending[1:]
					take(step, q, strict)
				}
			case 2: // put back a held id
				if len(held) > 0 {
					i := arg % len(held)
					id := held[i]
					held = append(held[:i], held[i+1:]...)
					if err := p.Put(id); err != nil {
						t.Fatalf("step %d: Put(%d): %v", step, id, err)
					}
				}
			case 3: // take any CQE: ids put back from it may rewrite older ones' entries
				if len(pending) > 0 {
					i := arg % len(pending)
					q := pending[i]
					pending = append(pending[:i], pending[i+1:]...)
					strict = strict && i == 0
					take(step, q, strict)
				}
			case 4: // a garbage CQE: no panic, and on success the model is void
				res := int32(int8(arg)) * int32(size) / 4
				flags := sys.CQEFlags(op&0x18)>>3 | sys.CQEFlags(arg%(count+2))<<sys.CQEBufferShift
				out := p.tr.nOut
				got, err := p.TakeBundle(res, flags, dst[:0])
				if err != nil && (len(got) != 0 || p.tr.nOut != out) {
					t.Fatalf("step %d: failed take changed something", step)
				}
				if err == nil {
					corrupt = true
					for _, b := range got {
						held = append(held, b.ID)
					}
				}
			}
			check(step)
		}
	})
}
