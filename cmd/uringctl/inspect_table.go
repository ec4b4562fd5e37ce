package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/pure-uring/uring/cmd/uringctl/internal/fdinfo"
)

// inspectTable prints one row per ring; rates adds SQE/s and CQE/s.
func inspectTable(w io.Writer, rep inspectReport, rates bool) {
	fmt.Fprintf(w, "%s  %d io_uring instance(s)\n", rep.Time.Format("15:04:05.000"), len(rep.Rings))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	hdr := "PID\tCOMM\tFD\tSQ\tHEAD\tTAIL\tCACHED\tPEND\tCQ\tHEAD\tTAIL\tCACHED\tPEND\tOVFL\tFILES\tBUFS\tPOLL\tSQPOLL\tNAPI"
	if rates {
		hdr += "\tSQE/s\tCQE/s"
	}
	fmt.Fprintln(tw, hdr+"\tNOTE")
	for _, r := range rep.Rings {
		fmt.Fprintf(tw, "%d\t%s\t%d\t", r.PID, r.Comm, r.FD)
		printed := !slices.Contains(r.Unavailable, string(fdinfo.PartRing))
		switch {
		case r.SQ != nil:
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t", r.SQ.Entries, r.SQ.Head, r.SQ.Tail, r.SQ.CachedHead, r.SQ.Pending)
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t", r.CQ.Entries, r.CQ.Head, r.CQ.Tail, r.CQ.CachedTail, r.CQ.Pending, len(r.CQ.OverflowList))
		case printed:
			// This kernel prints no ring indices (before 5.17).
			fmt.Fprint(tw, "-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t")
		default:
			fmt.Fprint(tw, "?\t?\t?\t?\t?\t?\t?\t?\t?\t?\t?\t")
		}
		fmt.Fprintf(tw, "%s\t%s\t", tableCount(r.Files != nil, countOf(r.Files)), tableCount(r.Buffers != nil, bufCountOf(r.Buffers)))
		if printed {
			fmt.Fprintf(tw, "%d\t", r.PollList)
		} else {
			fmt.Fprint(tw, "?\t")
		}
		sqpoll := sqpollText(r.SQPoll)
		if !printed {
			sqpoll = "?"
		}
		fmt.Fprintf(tw, "%s\t%s\t", sqpoll, napiText(r.NAPI, printed))
		if rates {
			if r.Rates != nil {
				fmt.Fprintf(tw, "%.0f\t%.0f\t", r.Rates.SQEsPerSec, r.Rates.CQEsPerSec)
			} else {
				fmt.Fprint(tw, "-\t-\t")
			}
		}
		fmt.Fprintln(tw, unavailableText(r.Unavailable, r.Attempts))
	}
	tw.Flush()
	if len(rep.Rings) == 0 {
		fmt.Fprintln(w, "no io_uring instances found")
	}
}

func countOf(f *inspectFiles) uint32 {
	if f == nil {
		return 0
	}
	return f.Count
}

func bufCountOf(b *inspectBufs) uint32 {
	if b == nil {
		return 0
	}
	return b.Count
}

func tableCount(ok bool, n uint32) string {
	if !ok {
		return "?"
	}
	return strconv.FormatUint(uint64(n), 10)
}

// sqpollText is "tid@cpuN 1.23s": the thread, the CPU it last ran on, and its
// CPU time (from its stat, else the kernel's SqTotalTime).
func sqpollText(s *inspectSQPoll) string {
	if s == nil {
		return "-"
	}
	var cpu time.Duration
	if s.UserSeconds != nil {
		cpu = time.Duration((*s.UserSeconds + *s.SysSeconds) * float64(time.Second))
	} else {
		cpu = time.Duration(s.TotalTimeUS) * time.Microsecond
	}
	where := "cpu" + strconv.Itoa(s.CPU)
	if s.CPU < 0 {
		where = "cpu?" // it has not run yet
	}
	return fmt.Sprintf("%d@%s %s", s.TID, where, cpu.Round(time.Millisecond))
}

func napiText(n *inspectNAPI, printed bool) string {
	switch {
	case !printed:
		return "?"
	case n == nil:
		return "-"
	case !n.Enabled:
		return "off"
	}
	s := n.Tracking + " " + (time.Duration(n.BusyPollNS) * time.Nanosecond).String()
	if n.PreferBusyPoll {
		s += " prefer"
	}
	return s
}
