//go:build linux

package fileio

import (
	"os"
	"testing"
)

// BenchmarkReadAtCached times 4 KiB ReadAt of a page-cache-warm file:
// fileio's (the RWF_NOWAIT probe) beside os.File's, in the same run.
func BenchmarkReadAtCached(b *testing.B) {
	path, _ := patternedB(b, 4096, 1024)
	of, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer of.Close()
	f, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	b.Run("fileio", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := f.ReadAt(buf, int64(i%1024)*4096); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := of.ReadAt(buf, int64(i%1024)*4096); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func patternedB(b *testing.B, block, blocks int) (string, []byte) {
	data := make([]byte, block*blocks)
	p := b.TempDir() + "/data"
	if err := os.WriteFile(p, data, 0o600); err != nil {
		b.Fatal(err)
	}
	return p, data
}
