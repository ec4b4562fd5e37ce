package fdinfo

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary text to both parsing modes: no panic, a result
// every time, lists no longer than the input has lines.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lines := 1
		for _, c := range b {
			if c == '\n' {
				lines++
			}
		}
		for _, partial := range []bool{false, true} {
			i := ParseWith(b, Options{PartialLock: partial})
			if i == nil {
				t.Fatal("nil Info")
			}
			if n := len(i.SQEList) + len(i.CQEList) + len(i.Files) + len(i.Bufs) + len(i.PollList) + len(i.Overflow); n > lines {
				t.Fatalf("%d entries from %d lines", n, lines)
			}
			_ = i.SQEntries() + i.CQEntries()
		}
		_, _ = ParseStat(string(b))
	})
}
