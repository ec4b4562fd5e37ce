package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cmd/uringctl/internal/trace"
	"github.com/pure-uring/uring/sys"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestTraceHelp(t *testing.T) {
	for _, h := range []string{"--help", "-h"} {
		code, out, errOut := runCmd("trace", h)
		require.Equal(t, 0, code)
		require.Contains(t, out, "usage: uringctl trace")
		for _, f := range []string{"-pid", "-duration", "-interval", "-json", "-hist"} {
			require.Contains(t, out, f)
		}
		require.Empty(t, errOut)
	}
	_, out, _ := runCmd("--help")
	require.Contains(t, out, "trace")
}

func TestTraceBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--duration", "soon"}, "invalid value \"soon\" for flag -duration"},
		{[]string{"--duration", "0s"}, "--duration 0s: must be above 0"},
		{[]string{"--duration", "2h"}, "--duration 2h0m0s: must be above 0 and at most 1h0m0s"},
		{[]string{"--interval", "1ms"}, "--interval 1ms: must be 0 or between 100ms"},
		{[]string{"--pid", "-3"}, "--pid -3: not a process id"},
		{[]string{"1234"}, `unexpected argument "1234"`},
	} {
		code, out, errOut := runCmd(append([]string{"trace"}, c.args...)...)
		require.Equal(t, 1, code, "args %q", c.args)
		require.Empty(t, out)
		require.Contains(t, errOut, c.want, "args %q", c.args)
	}
}

// TestTraceJSON runs trace on this process while it submits NOPs and checks
// the documented JSON fields and the counts.
func TestTraceJSON(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("trace needs root (CAP_BPF and CAP_PERFMON)")
	}
	r, err := uring.New(16)
	if err != nil {
		t.Skipf("io_uring unavailable: %v", err)
	}
	defer r.Close()

	var stop atomic.Bool
	var nops atomic.Uint64
	done := make(chan struct{})
	attached, ended, first := make(chan struct{}), make(chan struct{}), make(chan struct{})
	traceAttached = func() { // the timed trace starts after one NOP, however slow the machine
		close(attached)
		select {
		case <-first:
		case <-done:
		}
	}
	traceDetaching = func() { // no NOP in flight while the tracepoints detach
		stop.Store(true)
		<-done
	}
	defer func() { traceAttached, traceDetaching = func() {}, func() {} }()
	go func() {
		defer close(done)
		select { // no NOP in flight while the tracepoints attach
		case <-attached:
		case <-ended:
			return // trace never attached: the checks below say why
		}
		for !stop.Load() {
			s, err := r.GetSQE()
			if err != nil {
				return
			}
			s.Opcode = sys.OpNop
			if _, err := r.SubmitAndWait(1); err != nil {
				return
			}
			c, err := r.WaitCQE()
			if err != nil {
				return
			}
			r.CQESeen(c)
			if nops.Add(1) == 1 {
				close(first)
			}
		}
	}()
	code, out, errOut := runCmd("trace", "--json", "--duration", "500ms", "--pid", strconv.Itoa(os.Getpid()))
	close(ended)
	stop.Store(true)
	<-done
	if code == 2 {
		t.Skipf("tracing unavailable: %s", errOut)
	}
	require.Equal(t, 0, code, errOut)

	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	for _, k := range []string{"start", "elapsed_ns", "pid_filter", "events", "processes"} {
		require.Contains(t, raw, k)
	}
	procs := raw["processes"].([]any)
	require.Len(t, procs, 1)
	p := procs[0].(map[string]any)
	for _, k := range []string{"pid", "comm", "cq_overflows", "task_work_runs", "task_work_items", "local_work_runs", "local_work_items", "ops"} {
		require.Contains(t, p, k)
	}
	op := p["ops"].([]any)[0].(map[string]any)
	for _, k := range []string{"op", "opcode", "submits", "completes", "errors", "req_failed", "async_punts", "latency"} {
		require.Contains(t, op, k)
	}
	for _, k := range []string{"count", "sum_ns", "mean_ns", "p50_ns", "p99_ns", "max_ns", "buckets"} {
		require.Contains(t, op["latency"], k)
	}

	var rep trace.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Equal(t, os.Getpid(), rep.PID)
	require.GreaterOrEqual(t, rep.Elapsed, 500*time.Millisecond)
	me, ok := rep.Process(os.Getpid())
	require.True(t, ok)
	nop, ok := me.Op("NOP")
	require.True(t, ok)
	require.Positive(t, nop.Submits)
	require.LessOrEqual(t, nop.Submits, nops.Load()+1)
	require.GreaterOrEqual(t, nop.Completes+1, nop.Submits)
	require.Positive(t, nop.Latency.Count)
}

func TestTraceTable(t *testing.T) {
	rep := &trace.Report{
		Elapsed: 1500 * time.Millisecond,
		PID:     42,
		Events:  []string{"io_uring:io_uring_submit_req", "io_uring:io_uring_complete"},
		Notes:   []string{"mounted tracefs at /sys/kernel/tracing (it was not mounted)"},
		Processes: []trace.Process{{
			PID: 42, Comm: "app", CQOverflows: 3, TaskWorkRuns: 5, TaskWorkItems: 9,
			Ops: []trace.OpStats{
				{Op: "READ", Opcode: 22, Submits: 10, Completes: 10, Errors: 1,
					Errnos: []trace.Errno{{Errno: 9, Name: "EBADF", Count: 1}},
					Latency: trace.Latency{Count: 10, SumNs: 20480, MeanNs: 2048, P50Ns: 4096, P99Ns: 4096, MaxNs: 4096,
						Buckets: []trace.Bucket{{LowNs: 1024, HighNs: 2048, Count: 2}, {LowNs: 2048, HighNs: 4096, Count: 8}}}},
				{Op: "?", Opcode: -1, Completes: 4},
			},
		}},
	}
	var b bytes.Buffer
	traceTable(&b, rep, true)
	out := b.String()
	for _, want := range []string{
		"io_uring trace: pid 42, 1.5s, 2 tracepoints",
		"note: mounted tracefs",
		"PID 42 (app)  cq_overflows 3  task_work 5 runs/9 items",
		"READ errors: EBADF=1",
		"READ latency (submit->complete):",
		"[  2.048µs,   4.096µs) " + strings.Repeat("#", 40) + " 8",
	} {
		require.Contains(t, out, want)
	}
	lines := strings.Split(out, "\n")
	var readRow, unknownRow string
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "READ" && len(f) == 9 {
			readRow = l
		}
		if len(f) > 0 && f[0] == "?" {
			unknownRow = l
		}
	}
	require.Equal(t, []string{"READ", "10", "10", "1", "0", "0", "2.048µs", "4.096µs", "4.096µs"}, strings.Fields(readRow))
	require.Equal(t, []string{"?", "0", "4", "0", "0", "0", "-", "-", "-"}, strings.Fields(unknownRow))

	b.Reset()
	traceTable(&b, &trace.Report{}, false)
	require.Contains(t, b.String(), "no io_uring activity seen")
}
