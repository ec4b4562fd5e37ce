package trace

import "time"

// Report is what a Tracer has counted since Start.
type Report struct {
	Start     time.Time     `json:"start"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	PID       int           `json:"pid_filter,omitempty"` // 0: every process
	Events    []string      `json:"events"`               // tracepoints attached
	Notes     []string      `json:"notes,omitempty"`      // what was done or is missing
	Processes []Process     `json:"processes"`            // by pid
}

// Process holds one process's counters (tgid; threads and io-wq workers
// count under their process).
type Process struct {
	PID            int       `json:"pid"`
	Comm           string    `json:"comm"` // from /proc, or as the BPF program saw it once the process has exited
	CQOverflows    uint64    `json:"cq_overflows"`
	TaskWorkRuns   uint64    `json:"task_work_runs"`
	TaskWorkItems  uint64    `json:"task_work_items"`
	LocalWorkRuns  uint64    `json:"local_work_runs"` // DEFER_TASKRUN rings
	LocalWorkItems uint64    `json:"local_work_items"`
	Ops            []OpStats `json:"ops"` // by opcode, "?" last
}

// OpStats holds the counters of one opcode in one process.
type OpStats struct {
	Op         string  `json:"op"`     // "READ"; "?" for completions of requests not seen at submission
	Opcode     int     `json:"opcode"` // IORING_OP_*; -1 for "?"
	Submits    uint64  `json:"submits"`
	Completes  uint64  `json:"completes"`
	Errors     uint64  `json:"errors"`      // completions with res < 0
	ReqFailed  uint64  `json:"req_failed"`  // failed before issue (io_uring_req_failed)
	AsyncPunts uint64  `json:"async_punts"` // queued to io-wq
	Errnos     []Errno `json:"errnos,omitempty"`
	Latency    Latency `json:"latency"`
}

// Errno counts completions that failed with one errno.
type Errno struct {
	Errno int    `json:"errno"`
	Name  string `json:"name"` // "EBADF"
	Count uint64 `json:"count"`
}

// Latency is the submit→complete histogram of an opcode.
type Latency struct {
	Count   uint64   `json:"count"`
	SumNs   uint64   `json:"sum_ns"`
	MeanNs  uint64   `json:"mean_ns"`
	P50Ns   uint64   `json:"p50_ns"` // upper bound of the bucket holding the median
	P99Ns   uint64   `json:"p99_ns"`
	MaxNs   uint64   `json:"max_ns"` // upper bound of the highest bucket used
	Buckets []Bucket `json:"buckets,omitempty"`
}

// Bucket counts latencies in [LowNs, HighNs).
type Bucket struct {
	LowNs  uint64 `json:"low_ns"`
	HighNs uint64 `json:"high_ns"`
	Count  uint64 `json:"count"`
}

// latencyOf builds a Latency from the raw log2 buckets.
func latencyOf(count, sum uint64, hist []uint64) Latency {
	l := Latency{Count: count, SumNs: sum}
	if count > 0 {
		l.MeanNs = sum / count
	}
	var total uint64
	for b, n := range hist {
		if n == 0 {
			continue
		}
		lo, hi := bucketBounds(b)
		l.Buckets = append(l.Buckets, Bucket{LowNs: lo, HighNs: hi, Count: n})
		total += n
		l.MaxNs = hi
	}
	l.P50Ns = percentile(l.Buckets, total, 50)
	l.P99Ns = percentile(l.Buckets, total, 99)
	return l
}

func bucketBounds(b int) (lo, hi uint64) {
	if b > 0 {
		lo = 1 << b
	}
	if b == HistBuckets-1 {
		return lo, 1<<63 - 1
	}
	return lo, 1 << (b + 1)
}

func percentile(bs []Bucket, total uint64, p uint64) uint64 {
	if total == 0 {
		return 0
	}
	want := (total*p + 99) / 100
	var acc uint64
	for _, b := range bs {
		acc += b.Count
		if acc >= want {
			return b.HighNs
		}
	}
	return bs[len(bs)-1].HighNs
}

// Totals sums the counters of all opcodes of p.
func (p *Process) Totals() OpStats {
	t := OpStats{Op: "all", Opcode: -1}
	for _, o := range p.Ops {
		t.Submits += o.Submits
		t.Completes += o.Completes
		t.Errors += o.Errors
		t.ReqFailed += o.ReqFailed
		t.AsyncPunts += o.AsyncPunts
	}
	return t
}

// Op returns p's counters for the named opcode ("NOP", "READ", "?").
func (p *Process) Op(name string) (OpStats, bool) {
	for _, o := range p.Ops {
		if o.Op == name {
			return o, true
		}
	}
	return OpStats{}, false
}

// Process returns the counters of pid.
func (r *Report) Process(pid int) (Process, bool) {
	for _, p := range r.Processes {
		if p.PID == pid {
			return p, true
		}
	}
	return Process{}, false
}
