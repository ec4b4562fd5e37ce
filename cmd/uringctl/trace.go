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
	"syscall"
	"time"

	"github.com/pure-uring/uring/cmd/uringctl/internal/trace"
)

func init() {
	register(command{
		name:    "trace",
		summary: "count io_uring requests, latencies and failures per process and opcode (BPF, root)",
		run:     runTrace,
	})
}

const (
	traceMaxDuration = time.Hour
	traceMinInterval = 100 * time.Millisecond
)

func traceUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: uringctl trace [--pid PID] [--duration D] [--interval D] [--hist] [--json]

Attaches BPF programs to the io_uring:* tracepoints and reports, per process
and opcode: submissions, completions, submit->complete latency (log2
histogram keyed by the request), failures by errno, requests failed before
issue, async punts to io-wq; per process: CQ overflows and task-work runs.
Needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN) and tracefs, which it
mounts at /sys/kernel/tracing when missing. Ctrl-C stops early and reports.

Exit status: 0 ok, 1 error or bad flags, 2 tracing unavailable here.

flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func runTrace(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pid := fs.Int("pid", 0, "trace only this process `PID` (0: every process)")
	duration := fs.Duration("duration", 5*time.Second, "how long to trace (a `DURATION`, at most 1h)")
	interval := fs.Duration("interval", 0, "redraw the table every `INTERVAL` when stdout is a terminal (0: only at the end)")
	hist := fs.Bool("hist", false, "print each opcode's latency histogram in the table")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			traceUsage(stdout, fs)
			return 0
		}
		fmt.Fprintf(stderr, "uringctl trace: %v (see uringctl trace --help)\n", err)
		return 1
	}
	if err := traceCheckFlags(fs, *pid, *duration, *interval); err != nil {
		fmt.Fprintf(stderr, "uringctl trace: %v\n", err)
		return 1
	}

	tr, err := trace.Start(trace.Options{PID: *pid})
	if err != nil {
		fmt.Fprintf(stderr, "uringctl: %v\n", err) // err starts with "trace: "
		if errors.Is(err, trace.ErrUnavailable) {
			return 2
		}
		return 1
	}
	defer tr.Close()
	traceAttached()
	defer traceDetaching() // runs before Close

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()

	live := *interval > 0 && !*asJSON && traceIsTerminal(stdout)
	if !*asJSON {
		fmt.Fprintf(stderr, "uringctl trace: tracing for %v (Ctrl-C stops)\n", *duration)
		for _, n := range tr.Notes() {
			fmt.Fprintf(stderr, "uringctl trace: %s\n", n)
		}
	}
	var tick <-chan time.Time
	if live {
		t := time.NewTicker(*interval)
		defer t.Stop()
		tick = t.C
	}
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick:
			rep, err := tr.Snapshot()
			if err != nil {
				fmt.Fprintf(stderr, "uringctl trace: %v\n", err)
				return 1
			}
			fmt.Fprint(stdout, "\x1b[H\x1b[2J") // cursor home, clear screen
			traceTable(stdout, rep, *hist)
		}
	}

	rep, err := tr.Snapshot()
	if err != nil {
		fmt.Fprintf(stderr, "uringctl trace: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "uringctl trace: %v\n", err)
			return 1
		}
		return 0
	}
	if live {
		fmt.Fprint(stdout, "\x1b[H\x1b[2J")
	}
	traceTable(stdout, rep, *hist)
	return 0
}

// traceAttached and traceDetaching run once the tracepoints are attached
// and before they are detached: the test's io_uring traffic runs only
// between them. Attaching and detaching patch kernel text (int3 then the
// new instruction); under qemu's TCG a vCPU running that code meanwhile
// can miss the int3 handler and Oops (seen once on 6.12 in io_submit_sqes).
var traceAttached, traceDetaching = func() {}, func() {}

func traceCheckFlags(fs *flag.FlagSet, pid int, duration, interval time.Duration) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (use --pid PID)", fs.Arg(0))
	}
	if pid < 0 {
		return fmt.Errorf("--pid %d: not a process id", pid)
	}
	if duration <= 0 || duration > traceMaxDuration {
		return fmt.Errorf("--duration %v: must be above 0 and at most %v", duration, traceMaxDuration)
	}
	if interval != 0 && (interval < traceMinInterval || interval > traceMaxDuration) {
		return fmt.Errorf("--interval %v: must be 0 or between %v and %v", interval, traceMinInterval, traceMaxDuration)
	}
	return nil
}

// traceIsTerminal reports whether w is a character device (a terminal).
func traceIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
