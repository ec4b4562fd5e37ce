package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pure-uring/uring/cmd/uringctl/internal/trace"
)

// traceTable writes rep as a table: one block per process, one row per opcode.
func traceTable(w io.Writer, rep *trace.Report, hist bool) {
	who := "all processes"
	if rep.PID != 0 {
		who = fmt.Sprintf("pid %d", rep.PID)
	}
	fmt.Fprintf(w, "io_uring trace: %s, %v, %d tracepoints\n", who, rep.Elapsed.Round(time.Millisecond), len(rep.Events))
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if len(rep.Processes) == 0 {
		fmt.Fprintln(w, "\nno io_uring activity seen")
		return
	}
	for _, p := range rep.Processes {
		comm := p.Comm
		if comm == "" {
			comm = "exited"
		}
		fmt.Fprintf(w, "\nPID %d (%s)  cq_overflows %d  task_work %d runs/%d items  local_work %d runs/%d items\n",
			p.PID, comm, p.CQOverflows, p.TaskWorkRuns, p.TaskWorkItems, p.LocalWorkRuns, p.LocalWorkItems)
		if len(p.Ops) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "OP\tSUBMIT\tCOMPLETE\tERRORS\tREQ_FAILED\tASYNC\tMEAN\tP50<=\tP99<=\t")
		for _, o := range p.Ops {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", o.Op, o.Submits, o.Completes, o.Errors,
				o.ReqFailed, o.AsyncPunts, traceNs(o.Latency.MeanNs, o.Latency.Count),
				traceNs(o.Latency.P50Ns, o.Latency.Count), traceNs(o.Latency.P99Ns, o.Latency.Count))
		}
		tw.Flush()
		for _, o := range p.Ops {
			if len(o.Errnos) > 0 {
				parts := make([]string, len(o.Errnos))
				for i, e := range o.Errnos {
					parts[i] = fmt.Sprintf("%s=%d", e.Name, e.Count)
				}
				fmt.Fprintf(w, "  %s errors: %s\n", o.Op, strings.Join(parts, " "))
			}
		}
		if hist {
			for _, o := range p.Ops {
				traceHist(w, o)
			}
		}
	}
}

func traceNs(ns, count uint64) string {
	if count == 0 {
		return "-"
	}
	if ns >= 1<<62 {
		return "inf"
	}
	return time.Duration(ns).String()
}

// traceHist draws one opcode's latency buckets as bars.
func traceHist(w io.Writer, o trace.OpStats) {
	if len(o.Latency.Buckets) == 0 {
		return
	}
	fmt.Fprintf(w, "  %s latency (submit->complete):\n", o.Op)
	var maxCount uint64
	for _, b := range o.Latency.Buckets {
		maxCount = max(maxCount, b.Count)
	}
	for _, b := range o.Latency.Buckets {
		bar := int(b.Count * 40 / maxCount)
		if bar == 0 {
			bar = 1
		}
		fmt.Fprintf(w, "    [%9s, %9s) %-40s %d\n", traceNs(b.LowNs, 1), traceNs(b.HighNs, 1), strings.Repeat("#", bar), b.Count)
	}
}
