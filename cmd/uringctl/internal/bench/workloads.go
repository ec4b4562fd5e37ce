package bench

import (
	"errors"
	"fmt"
	"runtime"
)

// Workload is one `uringctl bench NAME`.
type Workload struct {
	Name    string
	Summary string
	Axis    string // the swept parameter, the chart's x axis
	Flags   string // the flags that apply, with their defaults (for --help)
	// Fallback: the project's side runs where io_uring is unavailable (on
	// its plain-system-call fallback, named so in the rows), so the
	// workload measures that fallback against its baseline there.
	Fallback bool
}

// NotAvailable is the error of a workload that cannot run here (a
// dependency is missing); `uringctl bench` prints it and exits 0.
type NotAvailable struct{ Reason string }

func (e *NotAvailable) Error() string { return "not available: " + e.Reason }

// IsNotAvailable reports whether err is a *NotAvailable.
func IsNotAvailable(err error) bool {
	var na *NotAvailable
	return errors.As(err, &na)
}

var workloads = []Workload{
	{"nop", "N NOPs in batches per enter, reaped each batch: poll.Loop (PrepBatch, and Prep per op) and task vs the raw Ring (+ C liburing when gcc and liburing are installed)", "batch", "--qd 1,8,32,128 (batch sizes) --n 2000000", false},
	{"randread", "4 KiB reads at random aligned offsets of one file, QD tasks vs QD goroutines on os.File.ReadAt (+ fio --ioengine=io_uring)", "qd", "--qd 1,4,16,64,128 --mode buffered,direct,fixed,iopoll,sqpoll --file PATH --size 256M --executors 1", false},
	{"files", "4 KiB ReadAt or WriteAt at random aligned offsets of one file from QD goroutines: task/fileio (fileio.OpenFile, Default rings) vs os.File with the same flags; ops/s and CPU time per op (+ the task layer at the same depth, for reads)", "qd", "--qd 1,16,128 --mode direct,buffered (also write-direct,write-dsync: a temp file in --dir) --file PATH --size 256M --dir DIR", true},
	{"tcprecv", "loopback TCP receive: task recv / multishot recv with a provided-buffer ring vs Go net.Conn.Read", "size", "--sizes 64,512,2048,8192,65536 --conns 1 --mode single,multishot", false},
	{"http", "HTTP/1.1 keep-alive hello world on task executors vs net/http (load: wrk -t1 -c10, or an in-process client)", "executors", "--executors 1,NCPU --conns 10", false},
	{"http-std", "unchanged net/http through the task runtime's net.Listener (goio) vs net.Listen, in load shapes (wrk: keep-alive, a new connection per request, 16-deep pipelining)", "conns", "--mode keepalive,close,pipeline --conns 1,10,100,1000 (keepalive; 10 for the others) --executors 1,NCPU", false},
	{"serve-file", "http.ServeContent of one file, downloaded whole again and again: goio.File on the runtime's listener vs os.File on net.Listen (both sendfile; splice chains WithRingConnWaits); SHA-256 checked", "conns", "--conns 1,4 --size 256M (BENCHMARKS.md: 1G) --mode go,curl (the load) --executors 1 --dir DIR", false},
	{"echo", "1 KiB echo over N connections: task executor server vs Go net server", "conns", "--conns 4,16,64 --sizes 1024 --executors 1", false},
	{"spawn", "one task spawns N empty tasks and joins each vs goroutines + sync.WaitGroup", "n", "--n 10000,100000,1000000", false},
	{"switch", "a task yields N times vs runtime.Gosched; two tasks ping-pong on an unbuffered task channel vs two goroutines on an unbuffered chan", "n", "--n 1000000 --mode yield,pingpong", false},
	{"channel", "messages through a task channel of capacity 1024 vs a Go chan of capacity 1024; pairs spread over one executor per core", "pairs", "--pairs 1,2,4,8,16,32 --n 1000000 (2000000 at 1 pair) --executors NCPU", false},
	{"chain", "an awaited call chain N deep in a task vs plain calls (and a goroutine + channel per level)", "depth", "--depth 1000 --n 2000 (chains per run)", false},
	{"collect", "N tasks each running a 50-deep chain, wait for all, vs goroutines + sync.WaitGroup", "n", "--n 1000,5000,20000 --depth 50", false},
	{"overhead", "awaited NOPs from QD tasks vs the raw Ring doing the same NOPs in batches of QD", "qd", "--qd 1,8,32 --n 2000000", false},
}

// Workloads lists every workload.
func Workloads() []Workload { return append([]Workload(nil), workloads...) }

// Lookup finds a workload by name.
func Lookup(name string) (Workload, bool) {
	for _, w := range workloads {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// Run measures the workload's sweep.
func (w Workload) Run(c *Config) ([]Point, error) {
	run := runners[w.Name]
	if run == nil {
		return nil, &NotAvailable{Reason: fmt.Sprintf("%s is not implemented on %s", w.Name, runtime.GOOS)}
	}
	defer c.Progress.Done()
	return run(c)
}
