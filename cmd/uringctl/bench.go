package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cmd/uringctl/internal/bench"
)

func init() {
	register(command{
		name:    "bench",
		summary: "run a benchmark workload beside its Go baseline: table, --json, --svg chart",
		run:     runBench,
	})
}

func benchUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: uringctl bench NAME [flags]

Runs workload NAME (see docs/BENCHMARKS.md) as a sweep. Every point is
measured beside its Go-standard-library baseline in the same run,
alternating project and baseline --reps times; the medians and their ratio
are reported (ratio > 1: the project is better, whatever the unit). Peers
are added when installed: fio for randread, a C liburing program for nop
(built with gcc at run time), wrk as the HTTP load generator.

A progress line is shown on stderr when it is a terminal. The table goes
to stdout; --json writes one object per point instead (JSON Lines; schema:
bench.Point in cmd/uringctl/internal/bench/point.go); --svg FILE draws the sweep.

randread reads a temp file of --size bytes (default 256M) created in --dir
(default: the working directory; /tmp may be a tmpfs, which refuses
O_DIRECT) unless --file names one; --size 1G or 8G matches the seeds.
files reads the same way (task/fileio vs os.File, from goroutines, with
CPU time per op); its write modes write a temp file of --size in --dir,
never --file.

Exit status: 0 ok (also when a workload is not available here: it says
why), 1 error or bad flags, 2 io_uring unavailable (files then measures
task/fileio's fallback on plain system calls instead).

workloads:
`)
	for _, wl := range bench.Workloads() {
		fmt.Fprintf(w, "  %-9s %s\n            flags: %s\n", wl.Name, wl.Summary, wl.Flags)
	}
	fmt.Fprint(w, "\nflags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

type benchFlags struct {
	name                                  string
	qd, sizes, modes, conns, execs, n, pr string
	depth, reps                           int
	duration                              time.Duration
	file, size, dir, svg                  string
	json, noPeers                         bool
}

func newBenchFlagSet(f *benchFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.qd, "qd", "", "queue depths (randread, files, overhead) or batch sizes (nop), comma-separated, e.g. 1,4,16,64,128")
	fs.StringVar(&f.sizes, "sizes", "", "message sizes (tcprecv, echo), e.g. 64,512,2K,8K,64K")
	fs.StringVar(&f.modes, "mode", "", "modes: randread buffered,direct,fixed,iopoll,sqpoll; files direct,buffered,write-direct,write-dsync; tcprecv single,multishot; switch yield,pingpong; http-std keepalive,close,pipeline; chain call,spawn; serve-file go,curl")
	fs.StringVar(&f.conns, "conns", "", "connections (tcprecv: first value; echo: the sweep; http: wrk/client connections)")
	fs.StringVar(&f.execs, "executors", "", "task executors (randread: first value; http: the sweep, default 1,NCPU; echo: the sweep, default 1)")
	fs.StringVar(&f.n, "n", "", "operation counts (spawn, collect: the sweep; switch, channel, chain: per run)")
	fs.StringVar(&f.pr, "pairs", "", "channel: sender/receiver pairs, e.g. 1,2,4,8,16,32")
	fs.IntVar(&f.depth, "depth", 0, "chain and collect: call-chain depth (default 1000 and 50)")
	fs.DurationVar(&f.duration, "duration", time.Second, "length of one timed run of one implementation")
	fs.IntVar(&f.reps, "reps", 3, "runs of each implementation, alternating; the median is reported")
	fs.StringVar(&f.file, "file", "", "randread, files: file to read (created or extended to --size), or a block device (only read; --size at most its size)")
	fs.StringVar(&f.size, "size", "256M", "randread, files, serve-file: file size (K, M, G suffixes)")
	fs.StringVar(&f.dir, "dir", "", "randread, files, serve-file: directory for the temp files (default: the working directory)")
	fs.BoolVar(&f.json, "json", false, "write one JSON object per point to stdout instead of the table")
	fs.StringVar(&f.svg, "svg", "", "also draw the sweep as an SVG line chart into this file")
	fs.BoolVar(&f.noPeers, "no-peers", false, "skip the peers (fio, the C liburing program, fasthttp, wrk: the in-process client is used)")
	return fs
}

// parseBenchFlags reads NAME and the flags (before or after NAME) into a
// bench.Config.
func parseBenchFlags(args []string) (*benchFlags, *bench.Config, *flag.FlagSet, error) {
	f := &benchFlags{}
	fs := newBenchFlagSet(f)
	if err := fs.Parse(args); err != nil {
		return f, nil, fs, err
	}
	if fs.NArg() > 0 {
		f.name = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return f, nil, fs, err
		}
		if fs.NArg() > 0 {
			return f, nil, fs, fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
	}
	if f.name == "" {
		return f, nil, fs, errors.New("missing workload NAME")
	}
	if _, ok := bench.Lookup(f.name); !ok {
		var names []string
		for _, w := range bench.Workloads() {
			names = append(names, w.Name)
		}
		return f, nil, fs, fmt.Errorf("unknown workload %q (want one of %s)", f.name, strings.Join(names, ", "))
	}
	c := &bench.Config{Duration: f.duration, Reps: f.reps, Depth: f.depth, File: f.file, Dir: f.dir, NoPeers: f.noPeers}
	var err error
	ints := func(flagName, v string, dst *[]int) {
		if err == nil && v != "" {
			if *dst, err = bench.ParseInts(v); err != nil {
				err = fmt.Errorf("--%s %s: %w", flagName, v, err)
			}
		}
	}
	ints("qd", f.qd, &c.QD)
	ints("conns", f.conns, &c.Conns)
	ints("executors", f.execs, &c.Executors)
	ints("pairs", f.pr, &c.Pairs)
	if err == nil && f.sizes != "" {
		if c.Sizes, err = bench.ParseSizes(f.sizes); err != nil {
			err = fmt.Errorf("--sizes %s: %w", f.sizes, err)
		}
	}
	if err == nil && f.n != "" {
		if c.N, err = bench.ParseCounts(f.n); err != nil {
			err = fmt.Errorf("--n %s: %w", f.n, err)
		}
	}
	if err == nil && f.modes != "" {
		for _, m := range strings.Split(f.modes, ",") {
			if m = strings.TrimSpace(m); m == "" {
				err = fmt.Errorf("--mode %q: empty mode", f.modes)
				break
			}
			c.Modes = append(c.Modes, m)
		}
	}
	if err == nil {
		if c.FileSize, err = bench.ParseSize(f.size); err != nil {
			err = fmt.Errorf("--size: %w", err)
		}
	}
	switch {
	case err != nil:
	case f.duration <= 0 || f.duration > time.Hour:
		err = fmt.Errorf("--duration %v: must be between 1ns and 1h", f.duration)
	case f.reps < 1 || f.reps > 100:
		err = fmt.Errorf("--reps %d: must be between 1 and 100", f.reps)
	case f.depth < 0 || f.depth > 1000000:
		err = fmt.Errorf("--depth %d: must be between 1 and 1000000", f.depth)
	}
	return f, c, fs, err
}

func runBench(args []string, stdout, stderr io.Writer) int {
	f, c, fs, err := parseBenchFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			benchUsage(stdout, fs)
			return 0
		}
		fmt.Fprintf(stderr, "uringctl bench: %v (see uringctl bench --help)\n", err)
		return 1
	}
	wl, _ := bench.Lookup(f.name)
	if err := uring.CheckAvailable(); err != nil {
		if !wl.Fallback {
			fmt.Fprintf(stderr, "uringctl bench: io_uring unavailable: %v\n", err)
			return 2
		}
		fmt.Fprintf(stderr, "uringctl bench: io_uring unavailable (%v): %s measures its fallback\n", err, f.name)
	}
	c.Log = stderr
	c.Progress = bench.NewProgress(stderr)
	points, err := wl.Run(c)
	if bench.IsNotAvailable(err) {
		w := stdout
		if f.json {
			w = stderr
		}
		fmt.Fprintf(w, "uringctl bench %s: %v\n", f.name, err)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "uringctl bench %s: %v\n", f.name, err)
		return 1
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		for _, p := range points {
			if err := enc.Encode(p); err != nil {
				fmt.Fprintf(stderr, "uringctl bench: %v\n", err)
				return 1
			}
		}
	} else if err := bench.WriteTable(stdout, points); err != nil {
		fmt.Fprintf(stderr, "uringctl bench: %v\n", err)
		return 1
	}
	if f.svg != "" {
		if err := writeBenchSVG(f.svg, "uringctl bench "+f.name, points); err != nil {
			fmt.Fprintf(stderr, "uringctl bench: --svg: %v\n", err)
			return 1
		}
	}
	return 0
}

func writeBenchSVG(path, title string, points []bench.Point) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := bench.WriteSVG(out, title, points); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
