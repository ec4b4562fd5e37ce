//go:build linux

package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
)

// Tracer owns the loaded programs, their maps and the tracepoint links.
type Tracer struct {
	opts   Options
	coll   *ebpf.Collection
	links  []link.Link
	start  time.Time
	events []string
	notes  []string
}

// event is one tracepoint and how to build its program.
type event struct {
	name     string
	oldName  string // the name before a kernel renamed it, tried second
	required bool
	what     string // what goes uncounted without it
	build    func(f *format, pid uint32) (asm.Instructions, error)
}

var events = []event{
	// io_uring_submit_sqe until 6.4.
	{"io_uring_submit_req", "io_uring_submit_sqe", true, "submissions", func(f *format, pid uint32) (asm.Instructions, error) {
		return progSubmit(f, slotSubmits, pid)
	}},
	{"io_uring_complete", "", true, "completions", progComplete},
	{"io_uring_req_failed", "", false, "requests failed before issue", func(f *format, pid uint32) (asm.Instructions, error) {
		return progSubmit(f, slotReqFailed, pid)
	}},
	{"io_uring_queue_async_work", "", false, "async punts", func(f *format, pid uint32) (asm.Instructions, error) {
		return progCount(f, "opcode", slotAsyncPunts, "", 0, pid)
	}},
	{"io_uring_cqe_overflow", "", false, "CQ overflows", func(f *format, pid uint32) (asm.Instructions, error) {
		return progCount(f, "", slotOverflows, "", 0, pid)
	}},
	{"io_uring_task_work_run", "", false, "task-work runs", func(f *format, pid uint32) (asm.Instructions, error) {
		return progCount(f, "", slotTaskWorkRuns, "count", slotTaskWorkRun, pid)
	}},
	{"io_uring_local_work_run", "", false, "local task-work runs", func(f *format, pid uint32) (asm.Instructions, error) {
		return progCount(f, "", slotLocalRuns, "count", slotLocalItems, pid)
	}},
}

// Start checks privileges and tracefs, builds the programs from the
// tracepoints' formats, loads them and attaches them. Errors that mean the
// machine or the caller cannot trace wrap ErrUnavailable.
func Start(opts Options) (*Tracer, error) {
	if opts.PID < 0 || opts.PID > 1<<30 {
		return nil, fmt.Errorf("trace: Options.PID = %d is not a process id", opts.PID)
	}
	if err := checkPrivileges(); err != nil {
		return nil, err
	}
	root, note, err := tracefsRoot()
	if err != nil {
		return nil, err
	}
	t := &Tracer{opts: opts}
	if note != "" {
		t.notes = append(t.notes, note)
	}
	if n := btfNote(); n != "" {
		t.notes = append(t.notes, n)
	}
	_ = rlimit.RemoveMemlock() // only matters before 5.11 (memcg accounting)

	spec := collectionSpec()
	formats := map[string]*format{}
	names := map[string]string{} // event -> the name this kernel gives it
	errs := map[string]error{}
	for _, ev := range events {
		names[ev.name] = ev.name
		f, err := readFormat(root, ev.name)
		if errors.Is(err, fs.ErrNotExist) && ev.oldName != "" {
			if f, err = readFormat(root, ev.oldName); err == nil {
				names[ev.name] = ev.oldName
			}
		}
		formats[ev.name], errs[ev.name] = f, err
	}
	// Before 5.19 io_uring_complete has no request pointer: every program
	// then keys requests by ring and user_data.
	if c := formats["io_uring_complete"]; c != nil {
		if _, hasReq := c.Fields["req"]; !hasReq {
			for _, f := range formats {
				if f != nil {
					f.byUserData = true
				}
			}
			t.notes = append(t.notes, "io_uring:io_uring_complete has no request pointer (before 5.19): requests are matched by ring and user_data")
		}
	}
	var attach []string
	for _, ev := range events {
		f, err := formats[ev.name], errs[ev.name]
		if err == nil {
			var insns asm.Instructions
			if insns, err = ev.build(f, uint32(opts.PID)); err == nil {
				spec.Programs[names[ev.name]] = &ebpf.ProgramSpec{
					Name:         progName(names[ev.name]),
					Type:         ebpf.TracePoint,
					License:      programLic,
					Instructions: insns,
				}
				attach = append(attach, names[ev.name])
				continue
			}
		}
		if ev.required {
			return nil, fmt.Errorf("trace: tracepoint io_uring:%s: %v: %w", ev.name, err, ErrUnavailable)
		}
		t.notes = append(t.notes, fmt.Sprintf("io_uring:%s unusable (%v): %s not counted", ev.name, err, ev.what))
	}

	t.coll, err = ebpf.NewCollection(spec)
	if err != nil {
		var ve *ebpf.VerifierError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("trace: verifier rejected a program: %+v", ve)
		}
		if errors.Is(err, unix.EPERM) {
			return nil, fmt.Errorf("trace: loading BPF programs: %v (locked down kernel or seccomp?): %w", err, ErrUnavailable)
		}
		return nil, fmt.Errorf("trace: loading BPF programs: %w", err)
	}
	// Attach submit_req last, so that every submission counted has its
	// completion counted too.
	slices.Reverse(attach)
	for _, name := range attach {
		l, err := link.Tracepoint("io_uring", name, t.coll.Programs[name], nil)
		if err != nil {
			t.Close()
			if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
				err = fmt.Errorf("%v: %w", err, ErrUnavailable)
			}
			return nil, fmt.Errorf("trace: attaching to io_uring:%s: %w", name, err)
		}
		t.links = append(t.links, l)
		t.events = append(t.events, "io_uring:"+name)
	}
	t.start = time.Now()
	return t, nil
}

// progName shortens "io_uring_submit_req" to a kernel object name (15 bytes).
func progName(event string) string {
	n := "uring_" + strings.TrimPrefix(event, "io_uring_")
	if len(n) > 15 {
		n = n[:15]
	}
	return n
}

// Notes says what Start did or found missing (tracefs mounted, a tracepoint
// absent), as Report.Notes does.
func (t *Tracer) Notes() []string { return append([]string(nil), t.notes...) }

// Close detaches the programs and frees the maps.
func (t *Tracer) Close() error {
	// Each detach waits for an RCU grace period; overlap them.
	errs := make([]error, len(t.links))
	var wg sync.WaitGroup
	for i, l := range t.links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.Close()
		}()
	}
	wg.Wait()
	t.links = nil
	if t.coll != nil {
		t.coll.Close()
		t.coll = nil
	}
	return errors.Join(errs...)
}

// Snapshot reads the counters accumulated since Start.
func (t *Tracer) Snapshot() (*Report, error) {
	if t.coll == nil {
		return nil, errors.New("trace: Snapshot after Close")
	}
	r := &Report{
		Start:   t.start,
		Elapsed: time.Since(t.start),
		PID:     t.opts.PID,
		Events:  append([]string(nil), t.events...),
		Notes:   append([]string(nil), t.notes...),
	}
	procs := map[uint32]*Process{}
	proc := func(tgid uint32, raw []uint64) *Process {
		p := procs[tgid]
		if p == nil {
			p = &Process{PID: int(tgid), Comm: comm(tgid)}
			procs[tgid] = p
		}
		if p.Comm == "" && raw != nil { // exited: use the comm the program saw
			var b [commLen]byte
			binary.NativeEndian.PutUint64(b[:8], raw[slotComm])
			binary.NativeEndian.PutUint64(b[8:], raw[slotComm+1])
			if n := bytes.IndexByte(b[:], 0); n >= 0 {
				p.Comm = string(b[:n])
			} else {
				p.Comm = string(b[:])
			}
		}
		return p
	}
	ops := map[statsKey]*OpStats{}

	var k statsKey
	var v [statsSlots]uint64
	it := t.coll.Maps[mapStats].Iterate()
	for it.Next(&k, &v) {
		p := proc(k.Tgid, v[:])
		if k.Op == opProcess {
			p.CQOverflows += v[slotOverflows]
			p.TaskWorkRuns += v[slotTaskWorkRuns]
			p.TaskWorkItems += v[slotTaskWorkRun]
			p.LocalWorkRuns += v[slotLocalRuns]
			p.LocalWorkItems += v[slotLocalItems]
			continue
		}
		o := &OpStats{
			Op: opName(k.Op), Opcode: opCode(k.Op),
			Submits: v[slotSubmits], Completes: v[slotCompletes], Errors: v[slotErrors],
			ReqFailed: v[slotReqFailed], AsyncPunts: v[slotAsyncPunts],
			Latency: latencyOf(v[slotLatCount], v[slotLatSumNs], v[slotHist:slotHist+HistBuckets]),
		}
		ops[k] = o
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("trace: reading stats: %w", err)
	}

	var ek errnoKey
	var n uint64
	eit := t.coll.Maps[mapErrnos].Iterate()
	for eit.Next(&ek, &n) {
		key := statsKey{Tgid: ek.Tgid, Op: uint32(ek.Op)}
		o := ops[key]
		if o == nil { // stats map was full
			o = &OpStats{Op: opName(key.Op), Opcode: opCode(key.Op)}
			ops[key] = o
		}
		o.Errnos = append(o.Errnos, Errno{Errno: int(ek.Errno), Name: errnoName(ek.Errno), Count: n})
	}
	if err := eit.Err(); err != nil {
		return nil, fmt.Errorf("trace: reading errnos: %w", err)
	}

	for k, o := range ops {
		sort.Slice(o.Errnos, func(i, j int) bool { return o.Errnos[i].Errno < o.Errnos[j].Errno })
		p := proc(k.Tgid, nil)
		p.Ops = append(p.Ops, *o)
	}
	for _, p := range procs {
		sort.Slice(p.Ops, func(i, j int) bool { return uint(p.Ops[i].Opcode) < uint(p.Ops[j].Opcode) })
		r.Processes = append(r.Processes, *p)
	}
	sort.Slice(r.Processes, func(i, j int) bool { return r.Processes[i].PID < r.Processes[j].PID })
	return r, nil
}

func opName(op uint32) string {
	if op == opUnknown {
		return "?"
	}
	return sys.Op(op).String()
}

func opCode(op uint32) int {
	if op == opUnknown {
		return -1
	}
	return int(op)
}

func errnoName(e uint16) string {
	if n := unix.ErrnoName(unix.Errno(e)); n != "" {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}

func comm(tgid uint32) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(tgid)) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
