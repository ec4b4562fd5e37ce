//go:build linux

package reg

import "sync"

// indexAlloc hands out indices [0, n) from a free list and tracks which are
// out in a bitmap, so no index is handed out twice and a stray Put is
// caught.
type indexAlloc struct {
	mu   sync.Mutex
	free []int32
	out  bitmap
}

func (a *indexAlloc) init(n int) {
	a.free = make([]int32, n)
	for i := range a.free {
		a.free[i] = int32(n - 1 - i) // pop order 0, 1, 2, …
	}
	a.out = newBitmap(n)
}

func (a *indexAlloc) get() (int, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := len(a.free)
	if n == 0 {
		return 0, false
	}
	i := int(a.free[n-1])
	a.free = a.free[:n-1]
	a.out.set(i)
	return i, true
}

func (a *indexAlloc) put(fn string, i int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i < 0 || i >= a.out.len() {
		return argErr(fn, "index", eq(i)+" is out of range [0, "+itoa(a.out.len())+")")
	}
	if !a.out.has(i) {
		return argErr(fn, "index", eq(i)+" is not out")
	}
	a.out.clear(i)
	a.free = append(a.free, int32(i))
	return nil
}

// bitmap is a fixed-size set of small integers.
type bitmap struct {
	w []uint64
	n int
}

func newBitmap(n int) bitmap     { return bitmap{w: make([]uint64, (n+63)/64), n: n} }
func (b *bitmap) len() int       { return b.n }
func (b *bitmap) has(i int) bool { return b.w[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b *bitmap) set(i int)      { b.w[i>>6] |= 1 << (uint(i) & 63) }
func (b *bitmap) clear(i int)    { b.w[i>>6] &^= 1 << (uint(i) & 63) }
