package trace

// Layout of the maps the BPF programs share with Go. Every counter is a u64
// slot of statsValue, updated with an atomic add.
const (
	slotSubmits      = 0  // io_uring_submit_req
	slotCompletes    = 1  // io_uring_complete
	slotErrors       = 2  // io_uring_complete with res < 0
	slotReqFailed    = 3  // io_uring_req_failed (failed before issue)
	slotAsyncPunts   = 4  // io_uring_queue_async_work
	slotLatCount     = 5  // completions with a known submit time
	slotLatSumNs     = 6  // sum of their latencies
	slotOverflows    = 7  // io_uring_cqe_overflow (per process)
	slotTaskWorkRuns = 8  // io_uring_task_work_run (per process)
	slotTaskWorkRun  = 9  // sum of its count: task-work items run
	slotLocalRuns    = 10 // io_uring_local_work_run (DEFER_TASKRUN rings)
	slotLocalItems   = 11 // sum of its count
	slotComm         = 12 // 16 bytes: comm of the thread that created the entry
	slotHist         = 16 // first histogram bucket

	commLen = 16 // TASK_COMM_LEN

	// HistBuckets is the number of log2 latency buckets: bucket b counts
	// latencies in [2^b, 2^(b+1)) ns (bucket 0 also holds 0 ns), the last one
	// everything longer.
	HistBuckets = 40

	statsSlots     = slotHist + HistBuckets
	statsValueSize = statsSlots * 8

	// opUnknown keys completions whose request was not seen at submission.
	opUnknown = 0x100
	// opProcess keys the per-process counters (overflows, task work).
	opProcess = 0x101

	// inflight value: {ts u64, tgid u32, op u32}.
	inflightValueSize = 16
	// errno key: {tgid u32, op u16, errno u16}.
	errnoKeySize = 8

	maxInflight = 1 << 16
	maxStats    = 1 << 13
	maxErrnos   = 1 << 12

	cqeFMore = 1 << 1 // IORING_CQE_F_MORE
)

// statsKey is the key of the stats map.
type statsKey struct {
	Tgid uint32
	Op   uint32
}

// errnoKey is the key of the errno map.
type errnoKey struct {
	Tgid  uint32
	Op    uint16
	Errno uint16
}
