package bench

import (
	"errors"
	"fmt"
	"sort"

	"github.com/pure-uring/uring"
)

// sample is one timed run of one implementation.
type sample struct {
	v     float64 // the measured value, in the point's unit
	p99   float64 // 99th-percentile latency in µs, when measured
	max   float64 // the largest latency in µs, when measured
	stats any     // the task layer's counters of the run (a *task.Stats), or nil
	cpu   float64 // the process's CPU time (user + sys) per operation in µs, when measured
}

// impl is an implementation to measure: run does one timed run.
type impl struct {
	name string
	run  func() (sample, error)
}

// spec is one point to measure: the project's implementations, the
// baseline, optional peers (a failing peer is dropped with a note), and
// the metadata every resulting Point carries.
type spec struct {
	meta     Point // Workload, Mode, Axis, X, Params, Unit, Higher
	project  []impl
	baseline impl
	peers    []impl
}

// measure runs every implementation of s reps times, alternating
// (project, baseline, peers, project, baseline, ...), and returns one Point
// per project implementation with the medians and ratios.
func (c *Config) measure(s spec) ([]Point, error) {
	reps := max(c.Reps, 1)
	all := append(append(append([]impl{}, s.project...), s.baseline), s.peers...)
	got := make([][]sample, len(all))
	failed := make([]error, len(all))
	unsup := make([]error, len(s.project))
	for r := 0; r < reps; r++ {
		for i, im := range all {
			if failed[i] != nil {
				continue
			}
			c.Progress.Show(fmt.Sprintf("%s %s%s=%d · %s · rep %d/%d", s.meta.Workload, modePrefix(s.meta.Mode), s.meta.Axis, s.meta.X, im.name, r+1, reps))
			takeTaskStats() // nothing left from another run
			smp, err := im.run()
			smp.stats = takeTaskStats()
			if err != nil && i < len(s.project) && errors.Is(err, uring.ErrUnsupported) {
				// The kernel lacks what this implementation needs: the
				// point says so instead of failing the run.
				unsup[i], failed[i] = err, err
				continue
			}
			if err != nil {
				if i <= len(s.project) { // project or baseline: the point fails
					return nil, fmt.Errorf("%s %s%s=%d: %s: %w", s.meta.Workload, modePrefix(s.meta.Mode), s.meta.Axis, s.meta.X, im.name, err)
				}
				failed[i] = err
				c.logf("bench: %s: peer %s skipped: %v", s.meta.Workload, im.name, err)
				continue
			}
			got[i] = append(got[i], smp)
		}
	}
	base := median(got[len(s.project)])
	var peers []sample
	var peerNames []string
	for i := len(s.project) + 1; i < len(all); i++ {
		if failed[i] == nil && len(got[i]) > 0 {
			peers = append(peers, median(got[i]))
			peerNames = append(peerNames, all[i].name)
		}
	}
	env := CurrentEnv()
	var out []Point
	for i, im := range s.project {
		if unsup[i] != nil {
			out = append(out, unsupported(s.meta, im.name, s.baseline.name, unsup[i].Error(), reps))
			continue
		}
		m := median(got[i])
		p := s.meta
		p.Impl = im.name
		p.Value = m.v
		p.P99 = m.p99
		p.Max = m.max
		p.TaskStats = m.stats
		p.Baseline = s.baseline.name
		p.BaselineValue = base.v
		p.BaselineP99 = base.p99
		p.BaselineMax = base.max
		p.CPU = m.cpu
		p.BaselineCPU = base.cpu
		p.Ratio = ratio(m.v, base.v, p.Higher)
		p.Reps = reps
		p.Env = env
		for j, ps := range peers {
			p.Peers = append(p.Peers, Peer{Name: peerNames[j], Value: ps.v, P99: ps.p99, Ratio: ratio(m.v, ps.v, p.Higher)})
		}
		out = append(out, p)
	}
	return out, nil
}

// unsupported is a Point that could not be measured, and why.
func unsupported(meta Point, impl, baseline, why string, reps int) Point {
	meta.Impl, meta.Baseline, meta.Unsupported, meta.Reps = impl, baseline, why, reps
	meta.Env = CurrentEnv()
	return meta
}

func modePrefix(m string) string {
	if m == "" {
		return ""
	}
	return m + " "
}

// median returns the sample with the median value (and the median p99,
// max and CPU per operation).
func median(s []sample) sample {
	if len(s) == 0 {
		return sample{}
	}
	v := make([]float64, len(s))
	p := make([]float64, len(s))
	mx := make([]float64, len(s))
	cpu := make([]float64, len(s))
	for i, x := range s {
		v[i], p[i], mx[i], cpu[i] = x.v, x.p99, x.max, x.cpu
	}
	return sample{v: medianOf(v), p99: medianOf(p), max: medianOf(mx), cpu: medianOf(cpu), stats: s[len(s)-1].stats}
}

func medianOf(v []float64) float64 {
	sort.Float64s(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// percentile returns the p-th percentile (0..100) of sorted durations in ns.
func percentile(sorted []int64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return float64(sorted[i])
}

func sortInt64s(v []int64) { sort.Slice(v, func(i, j int) bool { return v[i] < v[j] }) }
