package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Config is one `uringctl bench` invocation: the sweep lists (nil: the
// workload's default), the length of one timed run, the reps.
type Config struct {
	QD        []int   // --qd: requests in flight / batch sizes / tasks
	Sizes     []int64 // --sizes: message or read sizes in bytes
	Modes     []string
	Conns     []int
	Executors []int
	N         []int64 // --n: operation counts for count-based workloads
	Pairs     []int
	Depth     int
	Duration  time.Duration // one timed run of one implementation
	Reps      int           // runs of each implementation; the median is kept
	File      string        // randread, files: the file read (default: a temp file)
	FileSize  int64         // randread, files: its size (created or extended when smaller)
	Dir       string        // where temp files go (default: the working directory)
	NoPeers   bool          // skip fio, wrk, the C program
	Progress  *Progress     // nil: no progress display
	Log       io.Writer     // notes (peers skipped, ...); nil: discarded
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

func orInts(v, def []int) []int {
	if len(v) > 0 {
		return v
	}
	return def
}

func orInt64s(v, def []int64) []int64 {
	if len(v) > 0 {
		return v
	}
	return def
}

func orStrings(v, def []string) []string {
	if len(v) > 0 {
		return v
	}
	return def
}

// ParseInts parses "1,4,16" (each > 0).
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// ParseSizes parses "64,512,4K,1M,1G" (binary units, each > 0).
func ParseSizes(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		n, err := ParseSize(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// ParseSize parses one size: a count of bytes with an optional K, M, G or
// T suffix (powers of 1024; "KiB", "MB" are accepted too).
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mul := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mul = 1 << 10
		case 'M':
			mul = 1 << 20
		case 'G':
			mul = 1 << 30
		case 'T':
			mul = 1 << 40
		}
		if mul > 1 {
			t = t[:n-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mul {
		return 0, fmt.Errorf("%q is not a positive size (e.g. 4096, 64K, 1G)", s)
	}
	return n * mul, nil
}

// FormatSize prints a byte count the way ParseSize reads it.
func FormatSize(n int64) string {
	for _, u := range []struct {
		s string
		m int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n >= u.m && n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseCounts parses "10000,100k,4M" (decimal k and M suffixes, each > 0).
func ParseCounts(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mul := int64(1)
		switch {
		case strings.HasSuffix(f, "k"), strings.HasSuffix(f, "K"):
			mul, f = 1000, f[:len(f)-1]
		case strings.HasSuffix(f, "m"), strings.HasSuffix(f, "M"):
			mul, f = 1000000, f[:len(f)-1]
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n <= 0 || n > (1<<40)/mul {
			return nil, fmt.Errorf("%q is not a positive count (e.g. 5000, 100k, 4M)", f)
		}
		out = append(out, n*mul)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
