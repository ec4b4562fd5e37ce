//go:build linux

package reg

// BufRingMemory returns the memory a BufRing maps: its entries, as the
// kernel reads them.
func BufRingMemory(r *BufRing) []byte { return r.mem }
