// Package trace counts io_uring activity per process and per opcode with BPF
// programs attached to the kernel's io_uring:* tracepoints.
//
// The programs are written in Go with cilium/ebpf's asm package (no C, no
// clang); the offsets of the fields they read come from the tracepoints'
// format files in tracefs at load time, so a kernel that moves a field keeps
// working. Start needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) and tracefs;
// it mounts tracefs at /sys/kernel/tracing when neither usual path has it, and
// says so in Report.Notes. Anything missing is an error wrapping
// ErrUnavailable that names what is missing.
//
// What is counted, keyed by (tgid, opcode): submissions (io_uring_submit_req),
// completions (io_uring_complete) with a log2 histogram of the time from
// submission to completion keyed by the request pointer, completions with a
// negative result by errno, requests that failed before issue
// (io_uring_req_failed) and punts to io-wq (io_uring_queue_async_work). Per
// process: CQ overflows (io_uring_cqe_overflow) and task-work runs
// (io_uring_task_work_run, io_uring_local_work_run). A completion whose
// request was submitted before tracing began (or a CQE the kernel posts
// without a request) is counted under opcode "?". A multishot request keeps
// its in-flight entry while CQE_F_MORE is set; each later CQE's latency is
// measured from the previous one.
//
// A Tracer's maps are read with Snapshot while the programs run; Close
// detaches everything. A Tracer is safe for use by one goroutine at a time.
package trace
