package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints points as an aligned table: one row per point, with
// the baseline, the ratio (> 1: the project is better) and the peers.
func WriteTable(w io.Writer, points []Point) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKLOAD\tMODE\tPOINT\tIMPL\tVALUE\tBASELINE\tBASE VALUE\tRATIO\tPEERS")
	for _, p := range points {
		mode := p.Mode
		if mode == "" {
			mode = "-"
		}
		pt := p.Axis + "=" + formatX(p.Axis, p.X)
		if p.Axis != "executors" && p.Params.Executors > 0 && !strings.Contains(p.Impl, "exec") {
			pt += fmt.Sprintf(" exec=%d", p.Params.Executors) // a second swept parameter
		}
		if p.Unsupported != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\tunsupported\t%s\t\t\t%s\n", p.Workload, mode, pt, p.Impl, p.Baseline, p.Unsupported)
			continue
		}
		val := FormatValue(p.Value) + " " + p.Unit
		base := FormatValue(p.BaselineValue)
		val += latencyNote(p.P99, p.Max) + cpuNote(p.CPU)
		base += latencyNote(p.BaselineP99, p.BaselineMax) + cpuNote(p.BaselineCPU)
		var peers []string
		for _, q := range p.Peers {
			peers = append(peers, fmt.Sprintf("%s %s (%s)", q.Name, FormatValue(q.Value), FormatRatio(q.Ratio)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Workload, mode, pt, p.Impl, val, p.Baseline, base, FormatRatio(p.Ratio), strings.Join(peers, "; "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(points) > 0 {
		e := points[0].Env
		_, err := fmt.Fprintf(w, "\nratio > 1: the project is better (rates: value/baseline; costs: baseline/value). %s, Linux %s, %d CPUs, median of %d reps.\n", e.GoVersion, e.Kernel, e.CPUs, points[0].Reps)
		return err
	}
	return nil
}

// latencyNote is " (p99 X µs)" or " (p99 X µs, max Y µs)", or "" when
// neither was measured.
func latencyNote(p99, max float64) string {
	switch {
	case p99 > 0 && max > 0:
		return fmt.Sprintf(" (p99 %s µs, max %s µs)", FormatValue(p99), FormatValue(max))
	case p99 > 0:
		return fmt.Sprintf(" (p99 %s µs)", FormatValue(p99))
	}
	return ""
}

// cpuNote is " (cpu X µs/op)", or "" when CPU time was not measured.
func cpuNote(us float64) string {
	if us <= 0 {
		return ""
	}
	return fmt.Sprintf(" (cpu %s µs/op)", FormatValue(us))
}
