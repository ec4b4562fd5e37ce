//go:build linux

package reg

import (
	"errors"
	"os"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
)

const (
	pageSize     = 4096
	hugePageSize = 2 << 20
)

// mapping is anonymous memory off the Go heap, shared by the tables that
// reference it (a buffer table and its clones) and unmapped by the last.
type mapping struct {
	mem  []byte
	refs atomic.Int32
}

// mapAnon maps at least n bytes, rounded up to the page (or huge page) size.
func mapAnon(fn string, n int, huge bool) (*mapping, error) {
	if n <= 0 {
		return nil, argErr(fn, "size", eq(n)+" is not positive")
	}
	round := pageSize
	if huge {
		round = hugePageSize
	}
	length := (n + round - 1) / round * round
	mem, err := sys.MmapAnon(length, huge)
	if err != nil {
		if huge && errors.Is(err, unix.ENOMEM) {
			return nil, &HugePageError{Func: fn, Size: length, Reserved: hugePagesReserved(), Err: err}
		}
		return nil, err
	}
	m := &mapping{mem: mem}
	m.refs.Store(1)
	return m, nil
}

func (m *mapping) get() { m.refs.Add(1) }

func (m *mapping) put() {
	if m.refs.Add(-1) == 0 {
		_ = sys.Munmap(m.mem)
	}
}

// contains reports whether b lies inside the mapping, and where.
func (m *mapping) contains(b []byte) (off int, ok bool) {
	if len(b) == 0 {
		return 0, false
	}
	base, a := sys.SliceAddr(m.mem), sys.SliceAddr(b)
	if a < base || a-base > uint64(len(m.mem)) || uint64(len(b)) > uint64(len(m.mem))-(a-base) {
		return 0, false
	}
	return int(a - base), true
}

// HugePageError is returned when huge-page memory was asked for and the
// kernel has none to give (MAP_HUGETLB fails with ENOMEM).
type HugePageError struct {
	Func     string
	Size     int    // bytes asked for, rounded to 2 MiB
	Reserved string // vm.nr_hugepages, or "?" when unreadable
	Err      error  // the mmap error
}

func (e *HugePageError) Error() string {
	return "reg: " + e.Func + ": huge pages: " + e.Err.Error() + " (" + itoa(e.Size) +
		" bytes of 2 MiB pages asked for; vm.nr_hugepages = " + e.Reserved +
		": reserve more with sysctl vm.nr_hugepages=N, or do not ask for huge pages)"
}

// Unwrap returns the mmap error (ENOMEM).
func (e *HugePageError) Unwrap() error { return e.Err }

func hugePagesReserved() string {
	b, err := os.ReadFile("/proc/sys/vm/nr_hugepages")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}
