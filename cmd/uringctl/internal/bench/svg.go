package bench

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// chart geometry (px)
const (
	panelW  = 660
	panelH  = 360
	plotL   = 78  // left margin (y tick labels, y label)
	plotR   = 220 // right margin (legend)
	plotT   = 44  // top margin (panel title)
	plotB   = 56  // bottom margin (x tick labels, x label)
	headerH = 64  // chart title and subtitle
)

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

type series struct {
	name string
	role int // 0 project (solid), 1 baseline (dashed), 2 peer (dotted)
	xy   map[int64]float64
}

type panel struct {
	mode   string
	unit   string
	series []*series
	notes  []string // unsupported points
	xs     []int64
}

func (p *panel) add(name string, role int, x int64, v float64) {
	for _, s := range p.series {
		if s.name == name {
			s.xy[x] = v
			return
		}
	}
	p.series = append(p.series, &series{name: name, role: role, xy: map[int64]float64{x: v}})
}

// WriteSVG draws points (one workload's sweep) as a line chart: value
// against the swept parameter, one line per implementation (the project's
// solid, baselines dashed, peers dotted), one panel per mode, with axes,
// ticks, labels, a legend and a title.
func WriteSVG(w io.Writer, title string, points []Point) error {
	var panels []*panel
	byMode := map[string]*panel{}
	unit, axis, higher := "", "", true
	for _, pt := range points {
		pn := byMode[pt.Mode]
		if pn == nil {
			pn = &panel{mode: pt.Mode}
			byMode[pt.Mode] = pn
			panels = append(panels, pn)
		}
		if pt.Unsupported != "" {
			note := "unsupported: " + pt.Unsupported
			if !contains(pn.notes, note) {
				pn.notes = append(pn.notes, note)
			}
			continue
		}
		unit, axis, higher = pt.Unit, pt.Axis, pt.Higher
		pn.unit = pt.Unit
		pn.add(pt.Impl, 0, pt.X, pt.Value)
		pn.add(pt.Baseline, 1, pt.X, pt.BaselineValue)
		for _, q := range pt.Peers {
			pn.add(q.Name, 2, pt.X, q.Value)
		}
	}
	for _, pn := range panels {
		seen := map[int64]bool{}
		for _, s := range pn.series {
			for x := range s.xy {
				if !seen[x] {
					seen[x] = true
					pn.xs = append(pn.xs, x)
				}
			}
		}
		sort.Slice(pn.xs, func(i, j int) bool { return pn.xs[i] < pn.xs[j] })
	}
	if len(panels) == 0 {
		panels = []*panel{{}}
	}
	cols := 1
	if len(panels) > 1 {
		cols = 2
	}
	rows := (len(panels) + cols - 1) / cols
	W, H := cols*panelW, headerH+rows*panelH
	b := &strings.Builder{}
	fmt.Fprintf(b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", W, H)
	better := "higher is better"
	if !higher {
		better = "lower is better"
	}
	fmt.Fprintf(b, `<text x="%d" y="26" text-anchor="middle" font-size="18" font-weight="bold">%s</text>`+"\n", W/2, esc(title))
	sub := fmt.Sprintf("%s vs %s (%s); solid: uring, dashed: Go baseline, dotted: peers", unit, axis, better)
	if len(points) > 0 {
		e := points[0].Env
		sub += fmt.Sprintf(" · %s, Linux %s, %d CPUs, median of %d", e.GoVersion, e.Kernel, e.CPUs, points[0].Reps)
	}
	fmt.Fprintf(b, `<text x="%d" y="48" text-anchor="middle" font-size="12" fill="#444">%s</text>`+"\n", W/2, esc(sub))
	for i, pn := range panels {
		ox, oy := (i%cols)*panelW, headerH+(i/cols)*panelH
		u := pn.unit
		if u == "" {
			u = unit
		}
		drawPanel(b, pn, ox, oy, u, axis)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func drawPanel(b *strings.Builder, pn *panel, ox, oy int, unit, axis string) {
	x0, y0 := float64(ox+plotL), float64(oy+plotT)
	pw, ph := float64(panelW-plotL-plotR), float64(panelH-plotT-plotB)
	name := pn.mode
	if name == "" {
		name = "all"
	}
	fmt.Fprintf(b, `<g class="panel" id="panel-%s">`+"\n", esc(name))
	fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="14" font-weight="bold">%s</text>`+"\n", x0+pw/2, oy+plotT-14, esc(name))
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#fafafa" stroke="#999"/>`+"\n", x0, y0, pw, ph)

	// y scale: 0 .. a nice maximum
	ymax := 0.0
	for _, s := range pn.series {
		for _, v := range s.xy {
			ymax = math.Max(ymax, v)
		}
	}
	step, top := niceScale(ymax)
	yOf := func(v float64) float64 { return y0 + ph - v/top*ph }
	for v := 0.0; len(pn.series) > 0 && v <= top*1.0001; v += step {
		y := yOf(v)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", x0, y, x0+pw, y)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", x0-5, y, x0, y)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", x0-8, y, esc(FormatValue(v)))
	}
	fmt.Fprintf(b, `<text transform="translate(%d %.1f) rotate(-90)" text-anchor="middle" font-size="13">%s</text>`+"\n", ox+18, y0+ph/2, esc(unit))

	// x scale: log2 when the values span a factor of 8 or more
	xs := pn.xs
	xOf := func(x int64) float64 { return x0 + pw/2 }
	if len(xs) > 1 {
		lo, hi := float64(xs[0]), float64(xs[len(xs)-1])
		if lo > 0 && hi/lo >= 8 {
			xOf = func(x int64) float64 {
				return x0 + 20 + (math.Log2(float64(x))-math.Log2(lo))/(math.Log2(hi)-math.Log2(lo))*(pw-40)
			}
		} else {
			xOf = func(x int64) float64 { return x0 + 20 + (float64(x)-lo)/(hi-lo)*(pw-40) }
		}
	}
	for _, x := range xs {
		px := xOf(x)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", px, y0+ph, px, y0+ph+5)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", px, y0+ph+18, esc(formatX(axis, x)))
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="13">%s</text>`+"\n", x0+pw/2, y0+ph+40, esc(axisLabel(axis)))

	// lines and markers
	for i, s := range pn.series {
		color := palette[i%len(palette)]
		dash := ""
		switch s.role {
		case 1:
			dash = ` stroke-dasharray="7 4"`
		case 2:
			dash = ` stroke-dasharray="2 3"`
		}
		var pts []string
		for _, x := range xs {
			if v, ok := s.xy[x]; ok {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(x), yOf(v)))
			}
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"><title>%s</title></polyline>`+"\n", color, dash, strings.Join(pts, " "), esc(s.name))
		for _, p := range pts {
			xy := strings.Split(p, ",")
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", xy[0], xy[1], color)
		}
		// legend entry
		ly := y0 + 10 + float64(i)*20
		lx := x0 + pw + 14
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", lx, ly, lx+24, ly, color, dash)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" dominant-baseline="middle">%s</text>`+"\n", lx+30, ly, esc(shorten(s.name, 26)))
	}
	for i, n := range pn.notes {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#b00">%s</text>`+"\n", x0+pw/2, y0+ph/2+float64(i)*16-float64(len(pn.notes)-1)*8, esc(shorten(n, 70)))
	}
	b.WriteString("</g>\n")
}

// niceScale picks a tick step of 1, 2 or 5 times a power of ten giving
// about five ticks, and the axis top (a multiple of the step above max).
func niceScale(max float64) (step, top float64) {
	if max <= 0 {
		return 0.2, 1
	}
	raw := max / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		step = m * mag
		if step >= raw {
			break
		}
	}
	top = math.Ceil(max*1.02/step) * step
	return step, top
}

func axisLabel(axis string) string {
	switch axis {
	case "qd":
		return "queue depth (requests in flight)"
	case "size":
		return "message size (bytes)"
	case "batch":
		return "SQEs per enter"
	case "conns":
		return "connections"
	case "executors":
		return "executors"
	case "n":
		return "operations per run"
	case "pairs":
		return "sender/receiver pairs"
	case "depth":
		return "chain depth"
	}
	return axis
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func esc(s string) string { return escaper.Replace(s) }
