package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/cmd/uringctl/internal/bench"
)

func benchRun(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(append([]string{"bench"}, args...), &o, &e)
	return code, o.String(), e.String()
}

func TestBenchHelp(t *testing.T) {
	for _, h := range []string{"--help", "-h"} {
		code, out, errOut := benchRun(h)
		require.Equal(t, 0, code)
		require.Empty(t, errOut)
		require.Contains(t, out, "usage: uringctl bench NAME")
		for _, w := range bench.Workloads() {
			require.Contains(t, out, "  "+w.Name+" ")
		}
		for _, f := range []string{"-qd", "-sizes", "-duration", "-mode", "-executors", "-conns", "-file", "-size", "-reps", "-json", "-svg"} {
			require.Contains(t, out, f)
		}
	}
	code, out, _ := benchRun("nop", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "usage: uringctl bench NAME")
}

func TestBenchBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{}, "missing workload NAME"},
		{[]string{"nope"}, `unknown workload "nope" (want one of nop, randread`},
		{[]string{"nop", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"nop", "--qd", "1,x"}, `--qd 1,x: "x" is not a positive integer`},
		{[]string{"nop", "--qd", "0"}, `--qd 0: "0" is not a positive integer`},
		{[]string{"tcprecv", "--sizes", "64,big"}, `--sizes 64,big: "big" is not a positive size`},
		{[]string{"spawn", "--n", "-3"}, `--n -3: "-3" is not a positive count`},
		{[]string{"randread", "--size", "0"}, `--size: "0" is not a positive size`},
		{[]string{"nop", "--duration", "soon"}, `invalid value "soon" for flag -duration`},
		{[]string{"nop", "--duration", "0s"}, "--duration 0s: must be between 1ns and 1h"},
		{[]string{"nop", "--reps", "0"}, "--reps 0: must be between 1 and 100"},
		{[]string{"nop", "extra"}, `unexpected argument "extra"`},
		{[]string{"switch", "--mode", "a,,b"}, `--mode "a,,b": empty mode`},
	} {
		code, out, errOut := benchRun(tc.args...)
		require.Equal(t, 1, code, tc.args)
		require.Empty(t, out, tc.args)
		require.Contains(t, errOut, "uringctl bench: "+tc.msg, tc.args)
		require.Contains(t, errOut, "see uringctl bench --help", tc.args)
	}
	// A mode the workload does not know fails when the workload runs.
	code, _, errOut := benchRun("switch", "--mode", "sideways", "--n", "10", "--reps", "1")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `switch: unknown --mode "sideways"`)
}

// decodePoints parses JSON Lines strictly into bench.Point and checks the
// documented fields are present in every object.
func decodePoints(t *testing.T, out string) []bench.Point {
	t.Helper()
	var pts []bench.Point
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		for _, k := range []string{"workload", "impl", "axis", "x", "params", "value", "unit", "higher_is_better", "baseline", "baseline_value", "ratio", "reps", "go_version", "kernel", "cpus", "time"} {
			require.Contains(t, m, k, sc.Text())
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var p bench.Point
		require.NoError(t, dec.Decode(&p))
		pts = append(pts, p)
	}
	require.NoError(t, sc.Err())
	return pts
}

func TestBenchWorkloadsJSON(t *testing.T) {
	dir := t.TempDir()
	cases := map[string][]string{
		"nop":        {"--qd", "1,8", "--duration", "20ms"},
		"randread":   {"--size", "8M", "--qd", "1,4", "--duration", "20ms", "--dir", dir},
		"files":      {"--size", "1M", "--qd", "1,4", "--duration", "20ms", "--dir", dir},
		"tcprecv":    {"--sizes", "512", "--duration", "200ms"},
		"http":       {"--executors", "1", "--duration", "200ms", "--conns", "2"},
		"echo":       {"--conns", "2", "--duration", "200ms"},
		"spawn":      {"--n", "1000"},
		"switch":     {"--n", "1000"},
		"channel":    {"--pairs", "1,2", "--n", "2000"},
		"chain":      {"--depth", "10", "--n", "10"},
		"collect":    {"--n", "100", "--depth", "5"},
		"overhead":   {"--qd", "1,4", "--duration", "20ms"},
		"http-std":   {"--executors", "1", "--duration", "200ms", "--conns", "2"},
		"serve-file": {"--size", "8M", "--duration", "200ms", "--conns", "1", "--dir", dir},
	}
	for _, w := range bench.Workloads() {
		args, ok := cases[w.Name]
		require.True(t, ok, "no test case for workload %s", w.Name)
		t.Run(w.Name, func(t *testing.T) {
			code, out, errOut := benchRun(append([]string{w.Name, "--json", "--reps", "1", "--no-peers"}, args...)...)
			require.Equal(t, 0, code, errOut)
			if strings.Contains(errOut, "not available: ") {
				require.Empty(t, out)
				t.Skipf("%s: %s", w.Name, strings.TrimSpace(errOut))
			}
			pts := decodePoints(t, out)
			require.NotEmpty(t, pts)
			for _, p := range pts {
				require.Equal(t, w.Name, p.Workload)
				require.Equal(t, w.Axis, p.Axis)
				require.NotEmpty(t, p.Impl)
				require.NotEmpty(t, p.Baseline)
				require.Equal(t, 1, p.Reps)
				require.Positive(t, p.CPUs)
				if p.Unsupported != "" {
					require.Zero(t, p.Value)
					continue
				}
				// every run measures something, however slow the machine: each
				// connection makes one round trip, each sender one write
				require.Positive(t, p.Value, "%+v", p)
				require.Positive(t, p.BaselineValue, "%+v", p)
				require.Positive(t, p.Ratio, "%+v", p)
				if p.Higher {
					require.InDelta(t, p.Value/p.BaselineValue, p.Ratio, 1e-9)
				} else {
					require.InDelta(t, p.BaselineValue/p.Value, p.Ratio, 1e-9)
				}
			}
		})
	}
}

func TestBenchRandreadModes(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := benchRun("randread", "--json", "--reps", "1", "--no-peers", "--size", "8M", "--qd", "2",
		"--duration", "20ms", "--dir", dir, "--mode", "buffered,direct,fixed,iopoll,sqpoll")
	require.Equal(t, 0, code, errOut)
	pts := decodePoints(t, out)
	require.Len(t, pts, 6)
	// buffered is measured on the task layer's fallback too, beside it
	require.Equal(t, "task (1 exec) fallback", pts[1].Impl)
	require.Equal(t, "buffered", pts[1].Mode)
	require.Empty(t, pts[1].Unsupported)
	pts = append(pts[:1], pts[2:]...)
	for i, m := range []string{"buffered", "direct", "fixed", "iopoll", "sqpoll"} {
		require.Equal(t, m, pts[i].Mode)
		require.Equal(t, int64(8<<20), pts[i].Params.FileSize)
		require.Equal(t, 2, pts[i].Params.QD)
	}
	require.Empty(t, pts[0].Unsupported, "buffered reads work anywhere")
	if !directIOWorks(t, dir) {
		// tmpfs (the VMs' /tmp) refuses O_DIRECT: every mode but buffered
		// says so.
		for _, p := range pts[1:] {
			require.Contains(t, p.Unsupported, "O_DIRECT", p.Mode)
		}
	} else if pts[3].Unsupported != "" {
		require.Contains(t, pts[3].Unsupported, "poll")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "the temp file is removed")
}

func TestBenchPeers(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio not installed: no fio peer to check")
	}
	code, out, errOut := benchRun("randread", "--json", "--reps", "1", "--size", "8M", "--qd", "1",
		"--duration", "50ms", "--dir", t.TempDir(), "--mode", "buffered")
	require.Equal(t, 0, code, errOut)
	pts := decodePoints(t, out)
	require.Len(t, pts, 2, "the task layer on io_uring and on its fallback")
	for _, p := range pts {
		require.Len(t, p.Peers, 1, errOut)
		require.Equal(t, "fio io_uring", p.Peers[0].Name)
		require.Positive(t, p.Peers[0].Value)
	}
}

func TestBenchTableAndSVG(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "nop.svg")
	code, out, errOut := benchRun("nop", "--qd", "1,8,32", "--duration", "10ms", "--reps", "1", "--no-peers", "--svg", svg)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "WORKLOAD")
	require.Contains(t, out, "uring.Ring")
	require.Contains(t, out, "batch=32")
	require.Contains(t, out, "ratio > 1: the project is better")

	f, err := os.Open(svg)
	require.NoError(t, err)
	defer f.Close()
	dec := xml.NewDecoder(f)
	counts := map[string]int{}
	var texts []string
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
			}
			counts[el.Name.Local]++
		case xml.CharData:
			if s := strings.TrimSpace(string(el)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	require.Equal(t, "svg", root)
	require.Equal(t, 4, counts["polyline"], "poll.Loop (PrepBatch and per op), task, uring.Ring")
	require.Equal(t, 12, counts["circle"], "4 lines x 3 points")
	all := strings.Join(texts, "|")
	for _, s := range []string{"uringctl bench nop", "poll.Loop", "uring.Ring", "SQEs per enter", "ns/op", "32"} {
		require.Contains(t, all, s)
	}
}
