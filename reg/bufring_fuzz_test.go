//go:build linux

package reg

import (
	"testing"

	"github.com/pure-uring/uring/internal/atomicx"
	"github.com/pure-uring/uring/internal/offheap"
	"github.com/pure-uring/uring/sys"
)

// localRing is a BufRing that was never registered: the index arithmetic
// and entry writes without a kernel.
func localRing(entries int) *BufRing {
	mem := make([]byte, entries*16)
	return &BufRing{group: 1, entries: entries, mask: uint16(entries - 1), mem: mem, bufs: offheap.View[sys.Buf](mem, 0, entries)}
}

// FuzzBufRingIndex drives a ring of a fuzzed size from a fuzzed tail
// through fuzzed Add/Advance steps: every index stays in range, the tail
// wraps at 1<<16 like the kernel's, entries land where a model says, and
// the published tail is what Tail reports.
func FuzzBufRingIndex(f *testing.F) {
	f.Add(uint8(0), uint16(0), []byte{0, 1, 2, 3})
	f.Add(uint8(15), uint16(65535), []byte{0x80, 0xff, 0x7f, 0x01, 0x40})
	f.Add(uint8(3), uint16(65530), []byte{1, 1, 1, 1, 1, 1, 1, 1, 0x83})
	f.Add(uint8(9), uint16(32767), []byte{0xff, 0xfe, 0xfd, 0x81, 0x82})
	f.Fuzz(func(t *testing.T, logN uint8, tail uint16, steps []byte) {
		entries := 1 << (logN % 16) // 1..32768
		r := localRing(entries)
		r.tail = tail
		mem := make([]byte, 1)
		for k, b := range steps {
			i := int(b & 0x7f)
			if b&0x80 != 0 {
				// Advance by i (the model: tail += i mod 1<<16).
				want := r.tail + uint16(i)
				r.Advance(i)
				if i > 0 && r.Tail() != want {
					t.Fatalf("step %d: tail %d, want %d", k, r.Tail(), want)
				}
				if i > 0 && atomicx.LoadAcquire16(&r.bufs[0].Resv) != want {
					t.Fatalf("step %d: published tail %d, want %d", k, r.bufs[0].Resv, want)
				}
				continue
			}
			// Add at i, scaled to sometimes exceed the ring.
			i = i * entries / 64
			idx, ok := ringIndex(r.tail, i, r.mask)
			err := r.Add(mem, uint16(k), i)
			if (err == nil) != ok || ok != (i < entries) {
				t.Fatalf("step %d: Add(i=%d) on %d entries: err=%v ok=%v", k, i, entries, err, ok)
			}
			if !ok {
				continue
			}
			if int(idx) >= entries {
				t.Fatalf("index %d out of range %d", idx, entries)
			}
			if want := int(r.tail+uint16(i)) % entries; int(idx) != want {
				t.Fatalf("index %d, model %d", idx, want)
			}
			if r.bufs[idx].Bid != uint16(k) || r.bufs[idx].Len != 1 {
				t.Fatalf("entry %d not written", idx)
			}
		}
	})
}

// FuzzTracker feeds fuzzed CQE results and flags and fuzzed gives to the
// buffer-id tracker: it never panics, an id is never out twice, and the out
// count matches the bitmap.
func FuzzTracker(f *testing.F) {
	f.Add(uint8(4), false, []byte{1, 0, 0, 0, 0x11, 0, 0, 0})
	f.Add(uint8(1), true, []byte{0x13, 5, 0, 0, 0x13, 200, 0, 0, 0x01, 0, 0, 0})
	f.Fuzz(func(t *testing.T, count uint8, inc bool, ops []byte) {
		n := int(count%32) + 1
		tr := tracker{m: &mapping{mem: make([]byte, n*64)}, size: 64, out: newBitmap(n), inc: inc, count: n}
		if inc {
			tr.off = make([]uint32, n)
		}
		for len(ops) >= 4 {
			op, bid, res := ops[0], uint16(ops[1]), int32(int8(ops[2]))*int32(ops[3])
			ops = ops[4:]
			if op&0x80 != 0 {
				wasOut := int(bid) < n && tr.out.has(int(bid))
				err := tr.give("give", bid)
				if (err == nil) != wasOut {
					t.Fatalf("give(%d): err=%v, was out=%v", bid, err, wasOut)
				}
			} else {
				flags := sys.CQEFlags(op&0x1f) | sys.CQEFlags(bid)<<sys.CQEBufferShift
				wasOut := int(bid) < n && tr.out.has(int(bid))
				b, data, err := tr.take("take", res, flags)
				if err == nil {
					if flags&sys.CQEFBuffer == 0 || b != bid || wasOut {
						t.Fatalf("take handed out bid %d (flags %v, was out %v)", b, flags, wasOut)
					}
					if len(data) > 64 {
						t.Fatalf("data of %d bytes", len(data))
					}
				}
			}
			outs := 0
			for i := 0; i < n; i++ {
				if tr.out.has(i) {
					outs++
				}
			}
			if outs != tr.nOut {
				t.Fatalf("nOut %d, bitmap %d", tr.nOut, outs)
			}
		}
	})
}
