package bench

import (
	"os"
	"runtime"
	"strings"
	"time"
)

// Point is one measured point of a sweep: the project's implementation Impl
// beside Baseline, measured in the same run, alternating. It is the --json
// schema of `uringctl bench` (one object per line).
type Point struct {
	Workload string  `json:"workload"`       // "randread", "nop", ...
	Mode     string  `json:"mode,omitempty"` // "direct", "yield", "multishot" ...
	Impl     string  `json:"impl"`           // the project's implementation measured
	Axis     string  `json:"axis"`           // the swept parameter: "qd", "size", "batch", "conns", "n", ...
	X        int64   `json:"x"`              // its value at this point
	Params   Params  `json:"params"`         // every parameter of the point
	Value    float64 `json:"value"`          // median over reps
	Unit     string  `json:"unit"`           // "IOPS", "MB/s", "req/s", "ns/op", ...
	Higher   bool    `json:"higher_is_better"`
	// Baseline is the Go standard library (or raw-ring) implementation
	// measured in the same run; BaselineValue is its median.
	Baseline      string  `json:"baseline"`
	BaselineValue float64 `json:"baseline_value"`
	// Ratio is how many times better Impl is than Baseline (> 1: the
	// project wins): Value/BaselineValue when Higher, else the inverse.
	Ratio float64 `json:"ratio"`
	// Peers are other implementations measured in the same run (fio,
	// a C liburing program, a second Go baseline), each with the ratio of
	// Impl against it, computed like Ratio.
	Peers []Peer `json:"peers,omitempty"`
	// P99 is the 99th-percentile latency of Impl and of Baseline in
	// microseconds, for workloads that measure it (http, echo).
	P99         float64 `json:"p99_us,omitempty"`
	BaselineP99 float64 `json:"baseline_p99_us,omitempty"`
	// Max is the largest latency of Impl and of Baseline in microseconds
	// (http-std under wrk), medians over the reps.
	Max         float64 `json:"max_us,omitempty"`
	BaselineMax float64 `json:"baseline_max_us,omitempty"`
	// CPU is the process's CPU time (user + system, from getrusage) per
	// operation of Impl and of Baseline in microseconds, medians over the
	// reps, for workloads that measure it (files).
	CPU         float64 `json:"cpu_us_per_op,omitempty"`
	BaselineCPU float64 `json:"baseline_cpu_us_per_op,omitempty"`
	Reps        int     `json:"reps"` // runs of each implementation; the median is reported
	// Unsupported says why the point was not measured ("device has no
	// poll queues"); Value, BaselineValue and Ratio are then 0.
	Unsupported string `json:"unsupported,omitempty"`
	// TaskStats are the task layer's counters (task.Stats: tasks, ops by
	// class, parks, kernel waits, wakes, SQ-full waits, CQ overflows,
	// backend) of Impl's last rep, for workloads that run on it.
	TaskStats any `json:"task_stats,omitempty"`
	Env
}

// Params are the parameters of a point; zero fields do not apply.
type Params struct {
	QD        int    `json:"qd,omitempty"`        // requests in flight (= tasks, goroutines)
	Batch     int    `json:"batch,omitempty"`     // SQEs per enter
	Size      int64  `json:"size,omitempty"`      // bytes per message or read
	Conns     int    `json:"conns,omitempty"`     // connections
	Executors int    `json:"executors,omitempty"` // task executors (threads)
	N         int64  `json:"n,omitempty"`         // operations (tasks, messages, yields) per run
	Depth     int    `json:"depth,omitempty"`     // call-chain depth
	Pairs     int    `json:"pairs,omitempty"`     // sender/receiver pairs
	FileSize  int64  `json:"file_size,omitempty"` // bytes of the file read
	File      string `json:"file,omitempty"`      // the file read
	Duration  string `json:"duration,omitempty"`  // length of one timed run
	Load      string `json:"load,omitempty"`      // load generator: "wrk", "in-process"
}

// Peer is one more implementation measured beside a point.
type Peer struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Ratio float64 `json:"ratio"` // Impl against this peer, like Point.Ratio
	P99   float64 `json:"p99_us,omitempty"`
}

// Env says where a point was measured.
type Env struct {
	GoVersion string `json:"go_version"`
	Kernel    string `json:"kernel"`
	CPUs      int    `json:"cpus"`
	Time      string `json:"time"` // RFC 3339, when the point was measured
}

// CurrentEnv describes this process and machine.
func CurrentEnv() Env {
	return Env{
		GoVersion: runtime.Version(),
		Kernel:    kernelRelease(),
		CPUs:      runtime.NumCPU(),
		Time:      time.Now().UTC().Format(time.RFC3339),
	}
}

func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return strings.TrimSpace(string(b))
}

// ratio is how many times better v is than base.
func ratio(v, base float64, higher bool) float64 {
	if v <= 0 || base <= 0 {
		return 0
	}
	if higher {
		return v / base
	}
	return base / v
}
