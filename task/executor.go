package task

import (
	"context"
	"errors"
	"fmt"
	"github.com/pure-uring/uring/internal/argerr"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// Option configures an Executor (NewExecutor) or every executor of a
// Runtime (NewRuntime). A bad argument is an *OptionError naming the
// option and the argument; no executor starts then.
type Option func(*config)

type config struct {
	entries        uint32
	ringOpts       []uring.Option
	noDefer        bool
	closeWait      time.Duration
	spin           time.Duration
	noPark         bool
	fixedSpin      bool // WithSpin given: no adaptive spinning
	noIOUring      bool // WithoutIOUring: the fallback backend
	ringConns      bool // WithRingConnWaits: package goio's sockets wait through the ring
	fixedProcs     bool // WithGOMAXPROCSUnchanged
	argerr.Options      // the first bad option argument
}

// bad records a bad option argument (the first one is the error).
func (c *config) bad(opt, reason string) { c.Bad(opt, reason) }

// WithRingConnWaits makes the goroutine-side sockets of package goio
// (Conn, PacketConn, Listener.Accept, Dial's connect) wait through the
// executor's ring: what would block becomes a RECV, SEND, RECVMSG,
// SENDMSG, POLL_ADD, ACCEPT or CONNECT that a task of the executor
// awaits, and the goroutine waits for its completion. By default they
// wait in Go's own netpoller, as the fallback backend's do: a goroutine's
// blocking Read then costs no hand-off to the executor's locked thread
// and back (net/http on the runtime's Listener measured 0.87-0.89x
// net.Listen through the ring and 1.08-1.11x through the netpoller, same
// run). In that mode the socket is non-blocking and its splices
// (ReadFrom, WriteTo) are sendfile(2) and non-blocking splice(2) calls
// from the goroutine as well; with WithRingConnWaits they are ring
// SPLICEs. It changes nothing on the fallback backend
// (Executor.RingConnWaits says whether it applies).
func WithRingConnWaits() Option { return func(c *config) { c.ringConns = true } }

// WithEntries sets the ring's SQ size, 1 to uring.MaxEntries (default
// 1024; the CQ is 4x, at most uring.MaxCQEntries).
func WithEntries(n uint32) Option {
	return func(c *config) {
		if n == 0 || n > uring.MaxEntries {
			c.bad("WithEntries", fmt.Sprintf("n = %d is outside 1..%d", n, uring.MaxEntries))
		}
		c.entries = n
	}
}

// WithRingOptions adds options for the executor's ring (SINGLE_ISSUER and
// DEFER_TASKRUN are added when the kernel has them); none may be nil.
func WithRingOptions(opts ...uring.Option) Option {
	return func(c *config) {
		for i, o := range opts {
			if o == nil {
				c.bad("WithRingOptions", fmt.Sprintf("opts[%d] is nil", i))
			}
		}
		c.ringOpts = append(c.ringOpts, opts...)
	}
}

// WithoutDeferTaskrun creates the ring without SINGLE_ISSUER|DEFER_TASKRUN.
func WithoutDeferTaskrun() Option { return func(c *config) { c.noDefer = true } }

// WithSpin sets how long an executor with nothing to run keeps checking
// the ring for completions before it parks in Go's netpoller (0 parks at
// once; negative is an error). Spinning holds the executor's P: keep it
// short. Without it the spin is 5µs, longer (up to 100µs) while recent
// waits for completions were that short and the process has Ps to spare
// (see poll.Core.Wait).
func WithSpin(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.bad("WithSpin", fmt.Sprintf("d = %v is negative", d))
		}
		c.spin, c.fixedSpin = max(d, 0), true
	}
}

// WithKernelWait makes an idle executor block its thread in io_uring_enter
// instead of parking its goroutine in Go's netpoller. Its P stays in a
// system call until the scheduler retakes it (up to 10ms), which stalls
// the process's other goroutines when Ps are scarce; use it only when the
// executors have the Ps to themselves.
func WithKernelWait() Option { return func(c *config) { c.noPark = true } }

// WithoutIOUring runs the executor on the fallback backend (Go's own I/O:
// see Backend) even where io_uring is available, as it does by itself
// where io_uring is not there. Ring options and ring-only ops do not apply
// then.
func WithoutIOUring() Option { return func(c *config) { c.noIOUring = true } }

// WithCloseWait bounds how long Close waits for tasks and operations to
// finish before stopping the remaining tasks (default 2s; 0 stops them at
// once; negative is an error).
func WithCloseWait(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.bad("WithCloseWait", fmt.Sprintf("d = %v is negative", d))
		}
		c.closeWait = d
	}
}

// WithGOMAXPROCSUnchanged leaves GOMAXPROCS alone for this executor. By
// default the package keeps GOMAXPROCS one above the number of running
// executors, so that busy executors (each holds a P while it runs tasks)
// never hold every P and starve the program's goroutines; an executor
// with this option is not counted. Use it when the program sizes
// GOMAXPROCS for its executors itself; with the GOMAXPROCS environment
// variable set, nothing is raised for any executor. (A raise is a
// runtime.GOMAXPROCS call, which turns off Go's automatic GOMAXPROCS
// updates for the process, as any such call does; giving the raise back
// does not turn them on.)
func WithGOMAXPROCSUnchanged() Option { return func(c *config) { c.fixedProcs = true } }

// newConfig applies opts to the defaults and checks them.
func newConfig(opts []Option) (config, error) {
	c := config{entries: 1024, closeWait: 2 * time.Second, spin: defaultSpin}
	for i, o := range opts {
		if o == nil {
			return c, optionError("NewExecutor", fmt.Sprintf("opts[%d] is nil", i))
		}
		o(&c)
	}
	return c, c.Err()
}

// newBatch bounds how many new tasks a worker runs in a row while a task
// below it on the resume stack is ready.
const newBatch = 64

// maxDepth bounds how many coroutines a parking task may resume inside
// itself before handing back to its resumer. A parked task's coroutine
// resumes the next runnable one (one switch), which parks and resumes the
// next, and so on; when a reap wakes them they unwind in turn, each
// switch back activating the task below. Every await then costs one
// switch, up to maxDepth tasks runnable at once (at 4 it was two for all
// but four of them: TestOneSwitchPerAwait).
const maxDepth = 256

// Executor runs tasks on one locked OS thread. Its backend is io_uring
// (task/internal/ring: one Ring through a poll.Core, which keeps the
// slots, reaps and dispatches and runs the sleep/wake protocol) or, where
// io_uring is not there, Go's own I/O (task/internal/fallback; see
// Backend); the Executor schedules.
type Executor struct {
	be      iop.Backend
	streams iop.Streams // multishot requests, where the backend has them
	raw     iop.RawSQEs // raw SQEs (T.Await), where the backend has them
	ring    *uring.Ring // the io_uring backend's ring; nil on the fallback
	op      iop.Op      // the operation a task is starting (await)
	links   []iop.Op    // a Link's operations (T.Link)
	inbox   poll.Inbox[remoteMsg]
	tid     int     // the executor's thread
	backend Backend // which backend runs, and why

	readyq       fifo[*T]
	newq         fifo[newEntry] // tasks to start, in order
	idle         []*worker      // stack: the bottom ones have been idle longest
	idleLow      int            // fewest idle workers since the last trim
	lastTrim     time.Time
	trimEvery    time.Duration
	depth        int // coroutines resumed inside one another right now
	readyOnStack int // woken tasks that are on the resume stack
	ticks        uint32

	live  T // sentinel of the list of unfinished tasks
	nlive int
	freeT []*T // pooled records of finished tasks
	slab  any  // the rest of the block of handles of the type spawned last (handle_slab.go)

	closing    bool
	forced     bool
	stopped    int // tasks stopped after the close wait
	closeStart time.Time
	closeWait  time.Duration

	closeReq atomic.Bool // Close was called
	done     chan struct{}
	closeErr error // set before done is closed

	// A goroutine was made runnable since the last wait: do not spin.
	signalled bool

	watches map[context.Context]*ctxWatch

	closeMu    sync.Mutex
	atClose    []func() // AtClose's functions, run when Close begins
	atCloseRan bool     // they ran: AtClose refuses new ones
	ringConns  bool     // WithRingConnWaits

	rt     *Runtime
	id     int
	holdsP bool // counted in GOMAXPROCS (procs.go)

	stats execStats

	// Stats (stats.go): executor thread only.
	spawned uint64
	ops     [numClasses]opCounts
}

// execStats counts what tests check and benchmarks report (the
// backend's own are its).
type execStats struct {
	inlined int // tasks run inline by their joiner
	resumes int // coroutines resumed (each a switch in and, later, one back)
	trimmed int // idle worker coroutines stopped after a burst
	pokes   int // tasks a context's cancellation looked at
}

// NewExecutor starts an executor: a goroutine locked to its OS thread that
// creates the ring on that thread and runs tasks until Close.
func NewExecutor(opts ...Option) (*Executor, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	ex := &Executor{done: make(chan struct{}), closeWait: c.closeWait, holdsP: !c.fixedProcs}
	ex.live.lnext, ex.live.lprev = &ex.live, &ex.live
	if ex.holdsP {
		holdP() // before the thread starts: it needs the P at once (procs.go)
	}
	started := make(chan error, 1)
	go ex.main(&c, started)
	if err := <-started; err != nil {
		return nil, err
	}
	return ex, nil
}

func (ex *Executor) main(c *config, started chan<- error) {
	// Unlocked only once the ring is closed: while the executor runs,
	// nothing else runs on the thread of its SINGLE_ISSUER ring. The thread
	// then goes back to Go instead of exiting with this goroutine: the
	// kernel cancels the pending requests of a thread that exits, and
	// other goroutines may have submitted to their own rings from this
	// thread before the executor locked it (tests.TestThreadExitCancelsItsRequests).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ex.tid = sys.Gettid()
	if err := ex.startBackend(c); err != nil {
		ex.releaseP()
		started <- err
		return
	}
	ex.inbox.Bind(ex.be)
	ex.trimEvery = trimEvery
	ex.ringConns = c.ringConns && ex.backend.Kind == BackendIOUring
	started <- nil
	ex.loop()
	ex.shutdown()
	ex.releaseP() // before done: Close returns with GOMAXPROCS given back
	close(ex.done)
}

// poll submits what is queued, waits for a completion when block is set
// and nothing is runnable, and delivers what completed: the backend's.
// Before a wait the executor lets go of its block of handles, so that the
// results of handles a program dropped are not kept while it idles.
func (ex *Executor) poll(block bool) {
	if block {
		ex.slab = nil
	}
	ex.be.Poll(block)
}

// hasPosted reports whether work was posted to the executor (its Inbox
// raised the backend's work flag).
func (ex *Executor) hasPosted() bool { return ex.be.HasWork() }

// busy is the number of operations outstanding in the backend.
func (ex *Executor) busy() int { return ex.be.Busy() }

// Ring returns the executor's ring, for registrations (files, buffers)
// made from a task on this executor; nil on the fallback backend (always
// off Linux). Do not submit or reap on it.
func (ex *Executor) Ring() *uring.Ring { return ex.ring }

// loop is the bottom of the resume stack.
func (ex *Executor) loop() {
	for {
		ex.drain()
		if ex.closing && ex.closeStep() {
			return
		}
		ex.tick()
		switch {
		case ex.readyq.len() > 0:
			ex.resume(ex.readyq.pop())
		case ex.newq.len() > 0:
			ex.startNew()
		default:
			ex.poll(!ex.closing)
			if ex.closing {
				ex.pollClosing()
			}
		}
	}
}

// tick submits and reaps now and then while tasks stay runnable, so that
// queued SQEs are not held back by a busy run queue.
func (ex *Executor) tick() {
	ex.ticks++
	if ex.ticks&127 == 0 {
		ex.poll(false)
	}
}

func (ex *Executor) runnable() bool {
	return ex.readyq.len() > 0 || ex.newq.len() > 0 || ex.readyOnStack > 0
}

// resume switches into a parked task's coroutine until it parks or ends.
func (ex *Executor) resume(t *T) {
	t.ready = false
	t.onStack = true
	ex.depth++
	ex.stats.resumes++
	t.w.next()
	ex.depth--
}

// newEntry is an entry of the queue of tasks to start: the record and its
// generation, since a task joined before it started runs inline in its
// joiner (see inline_linux.go) and can leave a stale entry behind, whose
// record may be pooled or reused by then.
type newEntry struct {
	t   *T
	gen uint32
}

// pushNew queues the initialised task t to be started.
func (ex *Executor) pushNew(t *T) { ex.newq.push(newEntry{t, t.gen}) }

// popNew takes the next new task that has not started yet.
func (ex *Executor) popNew() *T {
	for ex.newq.len() > 0 {
		if e := ex.newq.pop(); e.t.gen == e.gen && e.t.w == nil && !e.t.finished {
			return e.t
		}
	}
	return nil
}

// lastNew reports whether t is the last task queued to start.
func (ex *Executor) lastNew(t *T) bool {
	if ex.newq.len() == 0 {
		return false
	}
	e := ex.newq.last()
	return e.t == t && e.gen == t.gen
}

// startNew runs the next new task on an idle (or new) worker coroutine.
func (ex *Executor) startNew() {
	t := ex.popNew()
	if t == nil {
		return
	}
	var w *worker
	if n := len(ex.idle); n > 0 {
		w = ex.idle[n-1]
		ex.idle = ex.idle[:n-1]
		ex.idleLow = min(ex.idleLow, n-1)
	} else {
		w = ex.newWorker()
	}
	w.t, t.w = t, w
	t.onStack = true
	ex.depth++
	ex.stats.resumes++
	w.next()
	ex.depth--
}

// wake makes a parked task runnable. A task on the resume stack is only
// marked: it sees the mark when control comes back to it.
func (ex *Executor) wake(t *T) {
	if t.ready || t.finished {
		return
	}
	t.ready = true
	t.parkTok++ // invalidates the task's other wait registrations
	if t.onStack {
		ex.readyOnStack++
	} else if !ex.readyq.put(t) {
		ex.readyq.push(t)
	}
}

// Idle workers. A worker coroutine that finishes a task waits on the idle
// stack for the next; a burst of N parked tasks leaves N of them. Before
// an executor sleeps, at most once per trimEvery, it stops the ones that
// stayed idle the whole time since the last check (the idle stack never
// went below idleLow), keeping minIdle: a steady load keeps its workers,
// the tail of a burst goes.
const (
	trimEvery = time.Second
	minIdle   = 16
)

func (ex *Executor) trimIdle(now time.Time) {
	if now.Sub(ex.lastTrim) < ex.trimEvery {
		return
	}
	ex.lastTrim = now
	if excess := min(ex.idleLow, len(ex.idle)) - minIdle; excess > 0 {
		for _, w := range ex.idle[:excess] {
			w.stopped = true
			w.stop()
		}
		n := copy(ex.idle, ex.idle[excess:])
		clear(ex.idle[n:])
		ex.idle = ex.idle[:n]
		ex.stats.trimmed += excess
	}
	ex.idleLow = len(ex.idle)
}

// Close stops the executor: waiting tasks are woken with ErrClosed, their
// operations cancelled and reaped, and the ring closed once every CQE came
// back (or after the close wait, when operations the kernel cannot cancel
// keep their memory referenced forever rather than freed under the
// kernel). It returns what went wrong on the way: tasks that had to be
// stopped after the close wait, operations left to the kernel, the ring's
// close error. Safe to call more than once and from any goroutine; a
// later call returns the first one's error. From a task of the executor
// it begins the shutdown and returns ErrWouldDeadlock (it cannot wait for
// the task that calls it).
func (ex *Executor) Close() error {
	first := ex.closeReq.CompareAndSwap(false, true)
	if ex.onThreadRunning() {
		ex.startClose() // on the executor's thread: the shutdown starts now
		return ErrWouldDeadlock
	}
	if first {
		ex.post(remoteMsg{kind: msgClose})
	}
	<-ex.done
	return ex.closeErr
}

// onThreadRunning is onThread for a caller that may race the end of the
// executor: the thread id is compared only while the loop still runs.
func (ex *Executor) onThreadRunning() bool {
	select {
	case <-ex.done:
		return false
	default:
		return ex.onThread()
	}
}

// AtClose registers fn to run once when the executor's Close begins, on
// the executor's thread, before its tasks are told ErrClosed and its
// operations cancelled. It is for what ordinary goroutines wait on
// outside the executor (package goio's sockets, which wait in Go's
// netpoller: closing them ends those waits when the executor closes, as
// its own operations end). Functions run in the order they were
// registered. fn must not block, nor wait for the executor.
// AtClose reports false, and registers nothing, once Close has begun
// (fn would never run): the caller then does at once what fn would do.
func (ex *Executor) AtClose(fn func()) bool {
	ex.closeMu.Lock()
	defer ex.closeMu.Unlock()
	if ex.atCloseRan {
		return false
	}
	ex.atClose = append(ex.atClose, fn)
	return true
}

// runAtClose runs the functions AtClose registered (executor thread, at
// the start of the shutdown) and refuses new ones.
func (ex *Executor) runAtClose() {
	ex.closeMu.Lock()
	fns := ex.atClose
	ex.atClose, ex.atCloseRan = nil, true
	ex.closeMu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// RingConnWaits reports whether the executor runs with WithRingConnWaits
// on io_uring: goroutine-side sockets (package goio) then wait through
// its ring instead of Go's netpoller. False on the fallback backend,
// which has no ring.
func (ex *Executor) RingConnWaits() bool { return ex.ringConns }

// Done is closed when the executor has stopped.
func (ex *Executor) Done() <-chan struct{} { return ex.done }

// startClose begins the shutdown on the executor's thread.
func (ex *Executor) startClose() {
	if ex.closing {
		return
	}
	ex.closing = true
	ex.closeStart = time.Now()
	ex.runAtClose()
	ex.be.CancelAll()
	for t := ex.live.lnext; t != &ex.live; t = t.lnext {
		ex.interrupt(t, ErrClosed)
	}
}

// closeStep reports whether the shutdown is complete; past the close wait
// it stops the tasks that are still there, parked or runnable (tasks that
// ignore ErrClosed and keep yielding must not hold Close forever).
func (ex *Executor) closeStep() bool {
	if ex.nlive == 0 && ex.busy() == 0 && ex.be.Quiet() {
		return true
	}
	waited := time.Since(ex.closeStart) >= ex.closeWait
	if ex.runnable() && !waited {
		return false
	}
	if !waited {
		// Keep nudging: tasks may have started new waits since.
		for t := ex.live.lnext; t != &ex.live; t = t.lnext {
			ex.interrupt(t, ErrClosed)
		}
		return false
	}
	if !ex.forced {
		ex.forced = true
		ex.stopped = ex.nlive
		if ex.busy() > 0 {
			// Before the tasks are stopped: their callers take a task's
			// end as the end of its operations, and may close their fds.
			ex.be.Abandon()
		}
		for ex.live.lnext != &ex.live {
			t := ex.live.lnext
			if t.w == nil { // never started
				ex.unlinkLive(t)
				t.finish(ErrClosed)
				continue
			}
			t.w.stopped = true
			t.w.stop()
		}
	}
	return true
}

// pollClosing waits briefly for CQEs during shutdown.
func (ex *Executor) pollClosing() {
	if !ex.be.Quiet() && !ex.runnable() {
		ex.be.WaitClosing()
	}
}

func (ex *Executor) shutdown() {
	for _, w := range ex.idle {
		w.stopped = true
		w.stop()
	}
	ex.idle = nil
	var errs []error
	if ex.stopped > 0 {
		errs = append(errs, fmt.Errorf("task: Close: %d tasks still waited after the close wait (%v) and were stopped", ex.stopped, ex.closeWait))
	}
	if n := ex.busy(); n > 0 {
		ex.be.Abandon()
		errs = append(errs, fmt.Errorf("task: Close: %d operations did not complete; their memory stays referenced for the kernel", n))
	}
	msgs := ex.inbox.Close()
	err := ex.be.Close()
	for i := range msgs {
		msgs[i].refuse()
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("task: Close: %w", err))
	}
	ex.closeErr = errors.Join(errs...)
}

// worker is a pooled coroutine that runs tasks one after another.
type worker struct {
	ex      *Executor
	t       *T
	next    func() (struct{}, bool)
	stop    func()
	yield   func(struct{}) bool
	stopped bool
}

func (ex *Executor) newWorker() *worker {
	w := &worker{ex: ex}
	w.next, w.stop = iter.Pull(w.body)
	return w
}

func (w *worker) body(yield func(struct{}) bool) {
	w.yield = yield
	ex := w.ex
	batch := 0
	for {
		w.run(w.t)
		if w.stopped {
			return
		}
		// Take the next new task here, without a switch: also when a task
		// below on the stack was woken (by the task that just ended, say),
		// up to newBatch tasks, since the new ones were queued before it
		// was woken and a switch per task would double the cost of a spawn.
		if ex.newq.len() > 0 && !ex.closing && (ex.readyOnStack == 0 || batch < newBatch) {
			if t := ex.popNew(); t != nil {
				if ex.readyOnStack > 0 {
					batch++
				}
				w.t, t.w = t, w
				t.onStack = true
				ex.tick()
				continue
			}
		}
		batch = 0
		w.t = nil
		ex.idle = append(ex.idle, w)
		if !yield(struct{}{}) {
			return
		}
	}
}

func (w *worker) run(t *T) {
	if runBody(t) {
		w.stopped = true
		return
	}
	t.ex.recycle(t)
}

// runBody runs t's function with what surrounds every task, on a worker
// or inline in its joiner: a panic goes to t's joiners as *PanicError, a
// stop (a forced Close unwinding the coroutine) fails t with ErrClosed,
// and t is finished. It reports whether the coroutine is being stopped.
func runBody(t *T) (stopped bool) {
	defer func() {
		if p := recover(); p != nil {
			if p == errStop {
				stopped = true
				t.fail(ErrClosed)
			} else {
				t.fail(&PanicError{Value: p, Stack: stack()})
			}
		}
		t.onStack = false
		if !t.finished {
			t.ex.unlinkLive(t)
			t.finish(nil)
		}
	}()
	t.body.run(t)
	return false
}
