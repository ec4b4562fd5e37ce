package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pure-uring/uring/cmd/uringctl/internal/fdinfo"
)

func init() {
	register(command{
		name:    "inspect",
		summary: "show the io_uring instances of processes (sizes, heads, tails, pending, SQPOLL, NAPI)",
		run:     runInspect,
	})
}

const (
	inspectMinWatch = time.Millisecond
	inspectMaxWatch = time.Hour
)

func inspectUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: uringctl inspect [--json] [--watch INTERVAL [--count N]] [PID...]

Lists every io_uring instance (ring fd) of the given processes, or of every
process when none is given, from /proc/PID/fdinfo: SQ and CQ sizes, heads,
tails and the kernel's cached head/tail, pending SQEs and CQEs, the CQ
overflow list, registered files and buffers, the SQPOLL thread and its CPU
time, NAPI busy polling. Rings made with SETUP_REGISTERED_FD_ONLY have no fd
and are not seen; other users' processes need root.

The kernel prints a ring only while it can take the ring's lock (before
Linux 6.15: all but the file and buffer lists); inspect reads again a few
times, then says which part it could not get ("unavailable").

--watch refreshes every INTERVAL and adds SQE/s and CQE/s, from the SQ and
CQ tail deltas. With --json each refresh is one JSON object on its own line.

Exit status: 0 ok, 1 error or bad flags (or a PID that could not be read),
2 io_uring inspection unavailable here.

flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

type inspectFlags struct {
	json    bool
	watch   time.Duration
	count   int
	retries int
	pids    []int
}

// parseInspectFlags accepts flags before, between and after the PIDs.
func parseInspectFlags(args []string, stdout io.Writer) (*inspectFlags, int, error) {
	f := &inspectFlags{}
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&f.json, "json", false, "print JSON (schema: inspectReport in cmd/uringctl/inspect_json.go)")
	fs.DurationVar(&f.watch, "watch", 0, "refresh every `INTERVAL` (e.g. 1s) and show rates; Ctrl-C stops")
	fs.IntVar(&f.count, "count", 0, "with --watch, stop after `N` refreshes (0: until interrupted)")
	fs.IntVar(&f.retries, "retries", 4, "extra reads of a ring whose lock the kernel could not take")
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				inspectUsage(stdout, fs)
				return nil, 0, err
			}
			return nil, 1, err
		}
		if fs.NArg() == 0 {
			break
		}
		a := fs.Arg(0)
		pid, err := strconv.Atoi(a)
		if err != nil || pid <= 0 {
			return nil, 1, fmt.Errorf("PID %q: not a process id", a)
		}
		f.pids = append(f.pids, pid)
		args = fs.Args()[1:]
	}
	switch {
	case f.watch != 0 && (f.watch < inspectMinWatch || f.watch > inspectMaxWatch):
		return nil, 1, fmt.Errorf("--watch %v: must be between %v and %v", f.watch, inspectMinWatch, inspectMaxWatch)
	case f.count < 0:
		return nil, 1, fmt.Errorf("--count %d: must be 0 or more", f.count)
	case f.count > 0 && f.watch == 0:
		return nil, 1, fmt.Errorf("--count %d: needs --watch", f.count)
	case f.retries < 0 || f.retries > 100:
		return nil, 1, fmt.Errorf("--retries %d: must be between 0 and 100", f.retries)
	}
	return f, 0, nil
}

func runInspect(args []string, stdout, stderr io.Writer) int {
	f, code, err := parseInspectFlags(args, stdout)
	if err != nil {
		if code != 0 {
			fmt.Fprintf(stderr, "uringctl inspect: %v (see uringctl inspect --help)\n", err)
		}
		return code
	}
	opt := fdinfo.ScanOptions{Retries: f.retries}
	if f.retries == 0 {
		opt.Retries = -1
	}
	if f.watch == 0 {
		return inspectOnce(f, opt, stdout, stderr, nil)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	live := !f.json && traceIsTerminal(stdout)
	prev := map[inspectKey]inspectSample{}
	t := time.NewTicker(f.watch)
	defer t.Stop()
	for n := 1; ; n++ {
		if live {
			fmt.Fprint(stdout, "\x1b[H\x1b[2J") // cursor home, clear screen
		} else if !f.json && n > 1 {
			fmt.Fprintln(stdout)
		}
		if code := inspectOnce(f, opt, stdout, stderr, prev); code != 0 {
			return code
		}
		if f.count > 0 && n >= f.count {
			return 0
		}
		select {
		case <-ctx.Done():
			return 0
		case <-t.C:
		}
	}
}

// inspectKey names a ring across refreshes (an fd number may be reused).
type inspectKey struct {
	pid, fd int
	ino     uint64
}

// inspectSample is what a refresh remembers to compute the next one's rates.
type inspectSample struct {
	at             time.Time
	sqTail, cqTail uint32
	ok             bool
}

// inspectOnce scans and prints one report; prev (nil without --watch) holds
// the previous refresh's tails and is updated.
func inspectOnce(f *inspectFlags, opt fdinfo.ScanOptions, stdout, stderr io.Writer, prev map[inspectKey]inspectSample) int {
	res, err := fdinfo.Scan(f.pids, opt)
	if err != nil {
		fmt.Fprintf(stderr, "uringctl inspect: %v\n", err)
		if errors.Is(err, fdinfo.ErrUnsupported) {
			return 2
		}
		return 1
	}
	now := time.Now()
	rep := buildReport(res, now, f.watch)
	if prev != nil {
		seen := map[inspectKey]bool{}
		for i := range rep.Rings {
			r := &rep.Rings[i]
			k := inspectKey{r.PID, r.FD, r.Inode}
			seen[k] = true
			cur := inspectSample{at: now, ok: r.SQ != nil}
			if r.SQ != nil {
				cur.sqTail, cur.cqTail = r.SQ.Tail, r.CQ.Tail
			}
			if p, ok := prev[k]; ok && p.ok && cur.ok {
				dt := now.Sub(p.at).Seconds()
				if dt > 0 {
					// uint32 subtraction: the indices wrap.
					r.Rates = &inspectRates{
						Seconds:    dt,
						SQEsPerSec: float64(cur.sqTail-p.sqTail) / dt,
						CQEsPerSec: float64(cur.cqTail-p.cqTail) / dt,
					}
				}
			}
			if cur.ok {
				prev[k] = cur
			}
		}
		for k := range prev {
			if !seen[k] {
				delete(prev, k)
			}
		}
	}
	if f.json {
		b, err := json.Marshal(rep)
		if err != nil {
			fmt.Fprintf(stderr, "uringctl inspect: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		inspectTable(stdout, rep, f.watch > 0)
	}
	if len(res.Denied) > 0 && len(f.pids) == 0 {
		fmt.Fprintf(stderr, "uringctl inspect: %d processes could not be read (permission); run as root to see them\n", len(res.Denied))
	}
	for _, e := range res.Errors {
		fmt.Fprintf(stderr, "uringctl inspect: %v\n", e)
	}
	if len(res.Errors) > 0 {
		return 1
	}
	return 0
}

// unavailableText says in words what the kernel did not print.
func unavailableText(parts []string, attempts int) string {
	if len(parts) == 0 {
		return ""
	}
	what := make([]string, len(parts))
	for i, p := range parts {
		switch fdinfo.Part(p) {
		case fdinfo.PartRing:
			what[i] = "ring"
		case fdinfo.PartFiles:
			what[i] = "file list"
		case fdinfo.PartBuffers:
			what[i] = "buffer list"
		default:
			what[i] = p
		}
	}
	reads := "reads"
	if attempts == 1 {
		reads = "read"
	}
	return fmt.Sprintf("%s unavailable: kernel could not take the ring lock (%d %s)", strings.Join(what, ", "), attempts, reads)
}
