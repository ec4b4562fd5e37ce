package task

import (
	"errors"
	"expvar"
	"sync"

	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// opClass groups operations for Stats.
type opClass uint8

const (
	classFile  opClass = iota // reads, writes, opens, syncs, paths
	classNet                  // sockets: accept, connect, recv, send, poll
	classTimer                // sleeps and timeouts
	classOther                // the rest (NOP, raw SQEs)
	numClasses
	classNone = numClasses // not counted (a link chain)
)

var classNames = [numClasses]string{"file", "net", "timer", "other"}

// classOf is the class of each kind of operation (a raw SQE's is its
// opcode's).
var classOf = func() (c [iop.NumCodes]opClass) {
	for i := range c {
		c[i] = classFile
	}
	for _, code := range []iop.Code{iop.Accept, iop.Connect, iop.Recv, iop.Send, iop.Recvmsg, iop.Sendmsg,
		iop.SendZC, iop.Socket, iop.Shutdown, iop.Poll} {
		c[code] = classNet
	}
	c[iop.Sleep], c[iop.Nop], c[iop.Raw], c[iop.Link] = classTimer, classOther, classOther, classNone
	return c
}()

// opClassOf is the class of each io_uring opcode.
var opClassOf = func() (c [256]opClass) {
	for i := range c {
		c[i] = classOther
	}
	for _, op := range []sys.Op{sys.OpRead, sys.OpWrite, sys.OpReadv, sys.OpWritev, sys.OpReadFixed, sys.OpWriteFixed,
		sys.OpFsync, sys.OpOpenat, sys.OpOpenat2, sys.OpClose, sys.OpStatx, sys.OpFallocate, sys.OpUnlinkat,
		sys.OpMkdirat, sys.OpRenameat, sys.OpSplice, sys.OpFadvise, sys.OpMadvise, sys.OpSyncFileRange} {
		c[op] = classFile
	}
	for _, op := range []sys.Op{sys.OpAccept, sys.OpConnect, sys.OpRecv, sys.OpSend, sys.OpRecvmsg, sys.OpSendmsg,
		sys.OpSendZC, sys.OpSendmsgZC, sys.OpSocket, sys.OpShutdown, sys.OpPollAdd} {
		c[op] = classNet
	}
	c[sys.OpTimeout], c[sys.OpLinkTimeout] = classTimer, classTimer
	return c
}()

// opCounts are an executor's operations of one class: plain counters,
// written on its thread only (no atomic on the hot path).
type opCounts struct{ submitted, completed uint64 }

// countOp counts an operation of class c, submitted and completed.
func (ex *Executor) countOp(c opClass) {
	if c >= numClasses {
		return
	}
	oc := &ex.ops[c]
	oc.submitted++
	oc.completed++
}

// OpStats are the operations of one class.
type OpStats struct {
	Submitted uint64 `json:"submitted"` // begun: an io_uring request, or a direct non-blocking call (the fallback's, or a socket tried first)
	Completed uint64 `json:"completed"` // whose result came back
}

// Stats are an executor's counters, or a runtime's summed over its
// executors. They are plain counters kept on each executor's thread and
// read there on request: keeping them costs the hot path nothing but an
// increment.
type Stats struct {
	Backend      Backend            `json:"backend"`
	Executors    int                `json:"executors"`
	TasksLive    int                `json:"tasks_live"`    // started and not finished
	TasksSpawned uint64             `json:"tasks_spawned"` // started since the executor began
	Ops          map[string]OpStats `json:"ops"`           // by class: file, net, timer, other
	Parks        uint64             `json:"parks"`         // the executor slept: nothing to run
	KernelWaits  uint64             `json:"kernel_waits"`  // of those, sleeps inside io_uring_enter
	Wakes        uint64             `json:"wakes"`         // wakeups other goroutines sent a sleeping executor
	SQFullWaits  uint64             `json:"sq_full_waits"` // the SQ was full: submitted and reaped to make room
	CQOverflows  uint64             `json:"cq_overflows"`  // CQEs the kernel had to hold back (the CQ ring was full)
}

// Stats reads the executor's counters on its thread. From one of its own
// tasks it returns ErrWouldDeadlock; once closed, ErrClosed.
func (ex *Executor) Stats() (Stats, error) {
	var s Stats
	if ex == nil {
		return s, nilReceiver("Executor.Stats")
	}
	err := ex.Do(func() { s = ex.statsHere() })
	return s, err
}

// statsHere reads the counters (executor thread).
func (ex *Executor) statsHere() Stats {
	s := Stats{Backend: ex.backend, Executors: 1, TasksLive: ex.nlive, TasksSpawned: ex.spawned,
		Ops: make(map[string]OpStats, numClasses)}
	for c, oc := range ex.ops {
		s.Ops[classNames[c]] = OpStats{Submitted: oc.submitted, Completed: oc.completed}
	}
	var bs iop.Stats
	ex.be.Stats(&bs)
	s.Parks, s.KernelWaits, s.Wakes, s.SQFullWaits, s.CQOverflows = bs.Parks, bs.KernelWaits, bs.Wakes, bs.SQFullWaits, bs.CQOverflows
	return s
}

// Stats sums the counters of the runtime's executors (the closed ones
// are left out). Called from one of the runtime's tasks it reads only the
// other executors: the caller's own cannot answer while it runs.
func (rt *Runtime) Stats() Stats {
	var sum Stats
	if rt == nil {
		return sum
	}
	sum.Backend = rt.Backend()
	sum.Ops = make(map[string]OpStats, numClasses)
	for _, ex := range rt.execs {
		s, err := ex.Stats()
		if err != nil {
			continue
		}
		sum.Add(s)
	}
	return sum
}

// Add adds o's counters (executors included) to s; s's Backend stays.
func (s *Stats) Add(o Stats) {
	s.Executors += o.Executors
	s.TasksLive += o.TasksLive
	s.TasksSpawned += o.TasksSpawned
	if s.Ops == nil {
		s.Ops = make(map[string]OpStats, len(o.Ops))
	}
	for k, v := range o.Ops {
		c := s.Ops[k]
		c.Submitted += v.Submitted
		c.Completed += v.Completed
		s.Ops[k] = c
	}
	s.Parks += o.Parks
	s.KernelWaits += o.KernelWaits
	s.Wakes += o.Wakes
	s.SQFullWaits += o.SQFullWaits
	s.CQOverflows += o.CQOverflows
}

// ErrPublished is Publish's error for a name expvar already has.
var ErrPublished = errors.New("task: an expvar of that name is already published")

var publishMu sync.Mutex // expvar's check and publish, as one step

// Publish makes the runtime's Stats an expvar (served at /debug/vars by
// the expvar package's handler), read each time it is asked for. expvar
// names are global and permanent: a name already published is
// ErrPublished (expvar itself would panic).
func (rt *Runtime) Publish(name string) error {
	if rt == nil {
		return nilReceiver("Runtime.Publish")
	}
	if name == "" {
		return argError("Runtime.Publish", "name", "is empty")
	}
	publishMu.Lock()
	defer publishMu.Unlock()
	if expvar.Get(name) != nil {
		return ErrPublished
	}
	expvar.Publish(name, expvar.Func(func() any { return rt.Stats() }))
	return nil
}
