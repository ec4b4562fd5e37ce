package bench

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
)

func TestParse(t *testing.T) {
	s, err := ParseSizes("64, 4K,1M,1G,2KiB,3MB")
	require.NoError(t, err)
	require.Equal(t, []int64{64, 4096, 1 << 20, 1 << 30, 2048, 3 << 20}, s)
	for _, bad := range []string{"", "0", "-1", "x", "1Q", "99999999999T"} {
		_, err := ParseSize(bad)
		require.Error(t, err, bad)
	}
	n, err := ParseCounts("5000,100k,4M")
	require.NoError(t, err)
	require.Equal(t, []int64{5000, 100000, 4000000}, n)
	_, err = ParseCounts("1,,2")
	require.Error(t, err)
	q, err := ParseInts("1,4,16")
	require.NoError(t, err)
	require.Equal(t, []int{1, 4, 16}, q)
	require.Equal(t, "256M", FormatSize(256<<20))
	require.Equal(t, "1000", FormatSize(1000))
}

func TestRatioAndFormat(t *testing.T) {
	require.Equal(t, 2.0, ratio(200, 100, true))
	require.Equal(t, 2.0, ratio(50, 100, false))
	require.Zero(t, ratio(0, 100, true))
	require.Equal(t, "1.23M", FormatValue(1.234e6))
	require.Equal(t, "456K", FormatValue(456e3))
	require.Equal(t, "12.3", FormatValue(12.34))
	require.Equal(t, "-", FormatRatio(0))
	require.Equal(t, "64K", formatX("size", 65536))
	require.Equal(t, "4M", formatX("n", 4000000))
	step, top := niceScale(93000)
	require.Equal(t, 20000.0, step)
	require.Equal(t, 100000.0, top)
	require.Equal(t, 3.0, medianOf([]float64{5, 1, 3}))
	require.Equal(t, sample{v: 2.5, p99: 15, max: 150, cpu: 2.5, stats: "last"}, median([]sample{{1, 10, 100, nil, 1}, {4, 20, 200, nil, 4}, {2, 30, 300, nil, 2}, {3, 5, 50, "last", 3}}), "the last rep's task stats")
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewProgressTo(&b)
	p.Show("randread direct qd=16")
	p.Show("x")
	p.Done()
	require.Contains(t, b.String(), "\r[")
	require.Contains(t, b.String(), "randread direct qd=16")
	require.True(t, strings.HasSuffix(b.String(), "\r"))
	// Not a terminal: no display.
	require.Nil(t, NewProgress(&b))
	f, err := os.CreateTemp(t.TempDir(), "p")
	require.NoError(t, err)
	defer f.Close()
	require.Nil(t, NewProgress(f))
	require.False(t, IsTerminal(int(f.Fd())))
	var nilp *Progress
	nilp.Show("nothing")
	nilp.Done()
}

func TestSVGWellFormed(t *testing.T) {
	env := Env{GoVersion: "go1.x", Kernel: "6.18", CPUs: 2}
	pts := []Point{
		{Workload: "randread", Mode: "direct", Impl: "task <1>", Axis: "qd", X: 1, Value: 10, Unit: "IOPS", Higher: true, Baseline: "go & co", BaselineValue: 5, Peers: []Peer{{Name: "fio", Value: 9}}, Env: env, Reps: 3},
		{Workload: "randread", Mode: "direct", Impl: "task <1>", Axis: "qd", X: 16, Value: 30, Unit: "IOPS", Higher: true, Baseline: "go & co", BaselineValue: 8, Peers: []Peer{{Name: "fio", Value: 29}}, Env: env, Reps: 3},
		{Workload: "randread", Mode: "iopoll", Impl: "task <1>", Axis: "qd", X: 1, Unit: "IOPS", Baseline: "go & co", Unsupported: "device has no poll queues", Env: env},
	}
	var b bytes.Buffer
	require.NoError(t, WriteSVG(&b, "randread \"test\"", pts))
	dec := xml.NewDecoder(&b)
	n := map[string]int{}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if se, ok := tok.(xml.StartElement); ok {
			n[se.Name.Local]++
		}
	}
	require.Equal(t, 1, n["svg"])
	require.Equal(t, 2, n["g"], "one panel per mode")
	require.Equal(t, 3, n["polyline"])
}

func TestTable(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteTable(&b, []Point{
		{Workload: "nop", Impl: "poll.Loop", Axis: "batch", X: 8, Value: 60, Unit: "ns/op", Baseline: "uring.Ring", BaselineValue: 55, Ratio: 0.92, Peers: []Peer{{Name: "liburing (C)", Value: 50, Ratio: 0.83}}, Reps: 3},
		{Workload: "randread", Mode: "iopoll", Impl: "task", Axis: "qd", X: 4, Baseline: "go", Unsupported: "device has no poll queues (vda)"},
		{Workload: "files", Mode: "direct", Impl: "fileio.File ReadAt", Axis: "qd", X: 16, Value: 44300, Unit: "ops/s", Higher: true, Baseline: "os.File ReadAt", BaselineValue: 41300, Ratio: 1.07, CPU: 10.7, BaselineCPU: 15.5, Reps: 3},
	}))
	out := b.String()
	require.Contains(t, out, "batch=8")
	require.Contains(t, out, "60.0 ns/op")
	require.Contains(t, out, "0.92x")
	require.Contains(t, out, "liburing (C) 50.0 (0.83x)")
	require.Contains(t, out, "unsupported")
	require.Contains(t, out, "device has no poll queues (vda)")
	require.Contains(t, out, "44.3K ops/s (cpu 10.7 µs/op)")
	require.Contains(t, out, "41.3K (cpu 15.5 µs/op)")
}

func TestNotAvailable(t *testing.T) {
	var err error = &NotAvailable{Reason: "no adapter"}
	require.True(t, IsNotAvailable(err))
	require.Equal(t, "not available: no adapter", err.Error())
	_, ok := Lookup("nope")
	require.False(t, ok)
}

// TestMeasureUnsupportedImpl: a project implementation that needs what
// the kernel lacks (an error matching uring.ErrUnsupported) yields a Point
// that says why, once, while the other implementations are measured.
func TestMeasureUnsupportedImpl(t *testing.T) {
	calls := 0
	lacking := &uring.UnsupportedError{Feature: "multishot recv (IORING_RECV_MULTISHOT)", MinimumVersion: "6.0", Kernel: "5.10.0"}
	s := spec{
		meta: Point{Workload: "w", Axis: "x", X: 1, Higher: true},
		project: []impl{
			{"needs 6.0", func() (sample, error) { calls++; return sample{}, lacking }},
			{"works", func() (sample, error) { return sample{v: 2}, nil }},
		},
		baseline: impl{"go", func() (sample, error) { return sample{v: 1}, nil }},
	}
	c := &Config{Reps: 3}
	pts, err := c.measure(s)
	require.NoError(t, err)
	require.Len(t, pts, 2)
	require.Equal(t, 1, calls, "not retried after it answered unsupported")
	require.Equal(t, "needs 6.0", pts[0].Impl)
	require.Contains(t, pts[0].Unsupported, "needs Linux 6.0")
	require.Zero(t, pts[0].Value)
	require.Equal(t, "works", pts[1].Impl)
	require.Empty(t, pts[1].Unsupported)
	require.Equal(t, 2.0, pts[1].Ratio)

	// Any other error still fails the point.
	s.project[0].run = func() (sample, error) { return sample{}, errors.New("boom") }
	_, err = c.measure(s)
	require.ErrorContains(t, err, "boom")
}
