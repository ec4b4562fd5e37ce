package task

import (
	"context"
	"runtime/debug"

	"github.com/pure-uring/uring/task/internal/iop"
)

// T is a task's handle: every await is a method of it (or takes it). It is
// valid only inside the task's own function, on its executor.
type T struct {
	ex   *Executor
	w    *worker
	body runner
	fn   any // the function of a Handle's task, until it starts
	ctx  context.Context
	x    *tExtra // rarely used state, allocated on first use

	// Scheduling state, touched only on the executor's thread.
	ready        bool // woken, not yet resumed
	onStack      bool // running, or resuming another coroutine inside its park
	finished     bool
	parkKind     uint8
	hasDeadline  bool
	cancellable  bool
	chanClosed   bool   // woken from a Send by Close
	parkTok      uint32 // bumped on every wake, never reset: stale wait registrations see it
	gen          uint32 // bumped when the record is recycled: stale handles see it
	parkErr      error
	watching     context.Context // the context whose cancellation it is registered for
	wprev, wnext *T              // the tasks registered with the same watch
	deadline     int64           // UnixNano, with hasDeadline

	io iop.Waiter // the task as its backend sees it: results, and the backend's own state

	joiner       *T // one joiner (the common case)
	waitFor      *T // the task it joins
	lprev, lnext *T // list of unfinished tasks
}

// tExtra holds what few tasks use.
type tExtra struct {
	joiners []*T // more joiners
}

func (t *T) ext() *tExtra {
	if t.x == nil {
		t.x = new(tExtra)
	}
	return t.x
}

const (
	parkNone uint8 = iota
	parkYield
	parkOp   // waits for an operation: cancelled by its backend
	parkWait // waits on a task, channel or group: interrupted directly
)

// Result is the outcome of one CQE (of an op of T.Link).
type Result struct {
	Res   int32
	Flags uint32
}

// runner is what a task record runs: a Handle, a Group's or FirstOf's task.
type runner interface {
	run(t *T)
	fail(err error)
	done(t *T) // the task finished (called once, last)
}

// Context returns the task's context.
func (t *T) Context() context.Context { return t.ctx }

// Executor returns the executor the task runs on.
func (t *T) Executor() *Executor { return t.ex }

// Handle joins a task and holds its typed result. It points at the task's
// record with the record's generation: records are pooled, and a record
// reused by a later task has moved on to another generation, which tells
// the handle that its own task finished long ago.
//
// A handle is small, and Spawn and SpawnContext carve it from a block of
// 16 handles of the same type: a loop of spawns allocates once per 16
// tasks, and the record, the worker coroutine and the queues allocate
// nothing in steady state (the task's function waits in the record). A
// block's memory is freed when none of its handles is referenced any
// more.
type Handle[R any] struct {
	t      *T
	gen    uint32
	err    error
	doneCh chan struct{} // SpawnOn, SpawnAt: closed when the task is done
	res    R
}

func (h *Handle[R]) run(t *T) {
	fn := t.fn.(func(*T) (R, error))
	t.fn = nil
	h.res, h.err = fn(t)
}

func (h *Handle[R]) fail(err error) {
	if h.err == nil {
		h.err = err
	}
}

func (h *Handle[R]) done(t *T) {
	if h.doneCh != nil {
		t.ex.signalled = true
		close(h.doneCh)
	}
}

// finished reports (on the executor's thread) whether the task is done.
func (h *Handle[R]) finished() bool { return h.t.gen != h.gen || h.t.finished }

// Done reports whether the task has finished. From an ordinary goroutine
// it is safe on handles of SpawnOn, Go and SpawnAt (it checks their done
// channel, which orders the result); from a task, on any handle of its
// executor.
func (h *Handle[R]) Done() bool {
	if h.doneCh != nil {
		select {
		case <-h.doneCh:
			return true
		default:
			return false
		}
	}
	return h.finished()
}

// Spawn starts fn as a new task on t's executor, with t's context. It
// returns at once; the task runs when t parks, yields or joins it. When
// 128 tasks already wait to start, Spawn runs those first (as a park
// would), which bounds the queue.
func Spawn[R any](t *T, fn func(*T) (R, error)) *Handle[R] {
	t.runBacklog()
	ex := t.ex
	u := ex.newTask()
	h := newHandle[R](ex, u)
	// The parent's context: take its decoded deadline and cancellability.
	u.ex, u.body, u.ctx, u.fn = ex, h, t.ctx, fn
	u.hasDeadline, u.deadline, u.cancellable = t.hasDeadline, t.deadline, t.cancellable
	ex.queue(u)
	return h
}

// SpawnContext is Spawn with the new task's own context: its cancellation
// cancels the operation the task waits on.
func SpawnContext[R any](ctx context.Context, t *T, fn func(*T) (R, error)) *Handle[R] {
	t.runBacklog()
	ex := t.ex
	u := ex.newTask()
	h := newHandle[R](ex, u)
	u.fn = fn
	ex.start(ctx, u, h)
	return h
}

// start queues the new task u running body (executor thread).
func (ex *Executor) start(ctx context.Context, u *T, body runner) {
	u.init(ctx, ex, body)
	ex.queue(u)
}

// queue makes the initialised task u runnable.
func (ex *Executor) queue(u *T) {
	if ex.closing {
		u.finish(ErrClosed)
		return
	}
	ex.linkLive(u)
	ex.pushNew(u)
}

// SpawnOn starts fn on ex from any goroutine; wait with h.Wait (or, from
// a task, h.Join). ctx (nil: context.Background()) is the task's context,
// as SpawnContext's: its cancellation cancels the operation the task waits
// on, and its deadline bounds each operation; the task runs fn even when
// ctx is done already, and its awaits then fail with ctx's error.
func SpawnOn[R any](ctx context.Context, ex *Executor, fn func(*T) (R, error)) *Handle[R] {
	h := newRemote(ctx, ex, fn)
	ex.post(remoteMsg{kind: msgSpawn, t: h.t})
	return h
}

// newRemote makes the handle of a task started from another thread: its
// record is new (the pool belongs to ex's thread; the record joins it
// when the task is done).
func newRemote[R any](ctx context.Context, ex *Executor, fn func(*T) (R, error)) *Handle[R] {
	u := newT()
	h := &Handle[R]{t: u, doneCh: make(chan struct{})}
	u.fn = fn
	u.init(ctx, ex, h)
	return h
}

// Run runs fn on ex and waits for it from any goroutine, until fn has
// returned (its defers have run: what it closes is closed). ctx is the
// task's context: its end cancels the operation the task waits on and
// fails its awaits with ctx's error, so a task that returns on an error
// ends soon after; Run then returns what fn returned. To stop waiting
// without waiting for the task, use SpawnOn and Wait with a context of
// its own. From a task of ex it returns ErrWouldDeadlock (spawn and join
// instead).
func Run[R any](ctx context.Context, ex *Executor, fn func(*T) (R, error)) (R, error) {
	if !ex.closeReq.Load() && ex.onThread() {
		var zero R
		return zero, ErrWouldDeadlock
	}
	return SpawnOn(ctx, ex, fn).Wait(context.Background())
}

func (t *T) init(ctx context.Context, ex *Executor, body runner) {
	if ctx == nil {
		ctx = context.Background()
	}
	t.ex, t.body, t.ctx = ex, body, ctx
	t.setCtx(ctx)
}

// setCtx adopts ctx for the task's next awaits: a deadline becomes a
// LINK_TIMEOUT on each op; a cancellation pokes the executor (registered on
// the first park, so a task that never parks costs nothing).
func (t *T) setCtx(ctx context.Context) {
	t.ctx = ctx
	d, ok := ctx.Deadline()
	t.hasDeadline = ok
	t.deadline = 0
	if ok {
		t.deadline = d.UnixNano()
	}
	t.unwatchCtx()
	t.cancellable = ctx.Done() != nil
}

func (t *T) unwatchCtx() {
	if t.watching != nil {
		t.ex.unwatchCtx(t.watching, t)
		t.watching = nil
	}
}

// watchCtx registers the poke of a cancellable context before t parks.
func (t *T) watchCtx() {
	if t.cancellable && t.watching == nil {
		t.ex.watchCtx(t.ctx, t)
		t.watching = t.ctx
	}
}

// Join waits for the task of h to finish and returns its result. A panic
// in the task is returned as *PanicError. A cancelled t stops waiting with
// its context's error (the joined task keeps running).
func (h *Handle[R]) Join(t *T) (R, error) {
	if h.doneCh != nil {
		// Started by SpawnOn or SpawnAt, maybe on another executor, whose
		// record this thread must not read: the done channel orders the
		// result.
		if err := t.waitRemote(h.doneCh); err != nil {
			var zero R
			return zero, err
		}
		return h.res, h.err
	}
	if !h.finished() {
		if u := h.t; t.canRunInline(u) {
			t.runInline(u)
			if err := t.check(); err != nil { // cancelled meanwhile: as a wait reports it
				var zero R
				return zero, err
			}
		} else if err := t.waitTask(u); err != nil {
			var zero R
			return zero, err
		}
	}
	return h.res, h.err
}

// Wait waits from an ordinary goroutine for the task of a handle from
// SpawnOn, Go or SpawnAt (those have a done channel); a handle from Spawn
// or SpawnContext gets an *ArgError (join it with Join from a task). ctx
// bounds the wait only: when it ends first Wait returns its error and the
// task runs on (its own context is the one given when it was started).
// From a task of the executor that runs h's task it returns
// ErrWouldDeadlock unless the task is done (use Join).
func (h *Handle[R]) Wait(ctx context.Context) (R, error) {
	if h.doneCh == nil {
		var zero R
		return zero, argError("Handle.Wait", "h", "was not started with SpawnOn, Go or SpawnAt (use Join from a task)")
	}
	if ex := h.t.ex; ex != nil && !h.Done() && !ex.closeReq.Load() && ex.onThread() {
		var zero R
		return zero, ErrWouldDeadlock
	}
	if ctx == nil {
		ctx = context.Background()
	}
	select {
	case <-h.doneCh:
		return h.res, h.err
	case <-ctx.Done():
		var zero R
		return zero, ctx.Err()
	}
}

func (t *T) waitTask(u *T) error {
	if err := t.check(); err != nil {
		return err
	}
	if u.joiner == nil {
		u.joiner = t
	} else {
		u.ext().joiners = append(u.ext().joiners, t)
	}
	t.waitFor = u
	err := t.parkOn(parkWait)
	t.waitFor = nil
	return err
}

// waitRemote joins a task of another executor: park until its done
// channel is closed (a helper goroutine turns that into a wake).
func (t *T) waitRemote(done chan struct{}) error {
	if done == nil {
		return argError("Join", "h", "belongs to another executor and was not started with SpawnOn")
	}
	select {
	case <-done:
		return nil
	default:
	}
	ex, tok := t.ex, t.parkTok
	go func() {
		<-done
		ex.post(remoteMsg{kind: msgWake, t: t, tok: tok})
	}()
	return t.parkOn(parkWait)
}

// unjoin removes t from the joiners of the task it waits for.
func (t *T) unjoin() {
	u := t.waitFor
	if u == nil {
		return
	}
	t.waitFor = nil
	if u.joiner == t {
		u.joiner = nil
		return
	}
	if u.x == nil {
		return
	}
	for i, j := range u.x.joiners {
		if j == t {
			u.x.joiners = append(u.x.joiners[:i], u.x.joiners[i+1:]...)
			return
		}
	}
}

func (t *T) fail(err error) { t.body.fail(err) }

// finish marks t done and wakes whoever waits for it.
func (t *T) finish(err error) {
	if err != nil {
		t.body.fail(err)
	}
	t.finished = true
	t.unwatchCtx()
	ex := t.ex
	if j := t.joiner; j != nil {
		t.joiner = nil
		j.waitFor = nil
		ex.wake(j)
	}
	if x := t.x; x != nil {
		for _, j := range x.joiners {
			j.waitFor = nil
			ex.wake(j)
		}
		clear(x.joiners)
		x.joiners = x.joiners[:0]
	}
	t.body.done(t)
}

// maxFreeTasks bounds the pool of task records.
const maxFreeTasks = 4096

// newTask takes a task record from the pool (executor thread only).
func (ex *Executor) newTask() *T {
	if n := len(ex.freeT); n > 0 {
		t := ex.freeT[n-1]
		ex.freeT[n-1] = nil
		ex.freeT = ex.freeT[:n-1]
		return t
	}
	return newT()
}

// newT makes a task record.
func newT() *T {
	t := &T{}
	t.io.Task = (*taskWake)(t)
	return t
}

// recycle puts the record of a finished task back into the pool. Its
// generation moves on (handles of the old task see it finished); parkTok
// keeps counting (stale wait registrations never match again).
func (ex *Executor) recycle(t *T) {
	if len(ex.freeT) >= maxFreeTasks {
		return
	}
	// A finished task's pointers other than these are nil already, and its
	// flags are at rest; init sets the rest. (Zeroing the whole record
	// would cost a bulk write barrier whenever the collector runs.)
	t.body, t.ctx, t.w, t.fn = nil, nil, nil, nil
	t.finished, t.chanClosed = false, false
	t.gen++ // t.x is kept: its joiners were cleared by finish, the rest is overwritten before use
	ex.freeT = append(ex.freeT, t)
}

func (ex *Executor) linkLive(t *T) {
	t.lprev, t.lnext = ex.live.lprev, &ex.live
	ex.live.lprev.lnext = t
	ex.live.lprev = t
	ex.nlive++
	ex.spawned++
}

func (ex *Executor) unlinkLive(t *T) {
	if t.lnext == nil {
		return
	}
	t.lprev.lnext = t.lnext
	t.lnext.lprev = t.lprev
	t.lprev, t.lnext = nil, nil
	ex.nlive--
}

// interrupt stops t's current wait with err (a cancelled context, Close):
// an operation is cancelled by the backend (its completion, ECANCELED
// mostly, ends the wait); a wait on a task, channel or group ends at once.
func (ex *Executor) interrupt(t *T, err error) {
	if t.finished || t.ready {
		return
	}
	switch t.parkKind {
	case parkOp:
		ex.be.Cancel(&t.io, err)
	case parkWait:
		t.unjoin()
		t.parkErr = err
		ex.wake(t)
	}
}

// check returns the error an await must fail with before it starts.
func (t *T) check() error {
	if t.ex.closing {
		return ErrClosed
	}
	if t.cancellable {
		return t.ctx.Err()
	}
	return nil
}

// parkOn parks t until woken; it returns the error it was woken with.
func (t *T) parkOn(kind uint8) error {
	t.parkKind = kind
	t.parkErr = nil
	t.park()
	t.parkKind = parkNone
	err := t.parkErr
	t.parkErr = nil
	return err
}

// park gives the thread away until t is woken. While nothing else can run
// it polls the ring itself; while another task is ready it resumes it
// inside itself (one switch instead of two through the executor), up to
// maxDepth; otherwise it yields to whoever resumed it.
func (t *T) park() {
	ex := t.ex
	t.watchCtx()
	for {
		if t.ready {
			t.ready = false
			ex.readyOnStack--
			return
		}
		if ex.readyOnStack > 0 {
			break // a task below us on the stack is ready: unwind to it
		}
		if ex.depth < maxDepth {
			if ex.readyq.len() > 0 {
				ex.resume(ex.readyq.pop())
				ex.tick()
				continue
			}
			if ex.newq.len() > 0 && !ex.closing {
				ex.startNew()
				ex.tick()
				continue
			}
		} else if ex.readyq.len() > 0 || ex.newq.len() > 0 {
			break
		}
		if ex.closing || ex.closeReq.Load() {
			break // let the executor's loop run the shutdown
		}
		ex.poll(true)
	}
	t.onStack = false
	if !t.w.yield(struct{}{}) {
		panic(errStop)
	}
}

// Yield lets the other runnable tasks run before t continues.
func (t *T) Yield() {
	ex := t.ex
	ex.tick()
	// New tasks first: the executor resumes ready tasks ahead of new ones,
	// so while tasks keep yielding, new ones would never start.
	t.runNew(1)
	if !ex.runnable() {
		return
	}
	if ex.depth < maxDepth && ex.readyq.len() > 0 && ex.readyOnStack == 0 && !ex.closing && !ex.hasPosted() {
		// Run the next ready task inside this one, as park does: one switch
		// there and one back when it parks or yields, instead of two
		// through the executor. t counts as ready on the stack meanwhile,
		// so a task that parks above it unwinds to it rather than sleep.
		// Posted work (a Close among it) goes through the executor's loop.
		t.ready = true
		ex.readyOnStack++
		t.parkKind = parkYield
		ex.resume(ex.readyq.pop())
		ex.tick()
		if t.ready {
			t.ready = false
			ex.readyOnStack--
		}
		t.parkKind = parkNone
		return
	}
	t.ready = true
	ex.readyq.push(t)
	t.onStack = false
	t.parkKind = parkYield
	if !t.w.yield(struct{}{}) {
		panic(errStop)
	}
	t.parkKind = parkNone
}

// Scope runs fn with ctx as the task's context: its cancellation or
// deadline applies to the awaits inside fn (per-operation cancellation).
// ctx should derive from t.Context() to keep the task's own cancellation.
func (t *T) Scope(ctx context.Context, fn func(t *T) error) error {
	if ctx == nil {
		return argError("Scope", "ctx", "is nil")
	}
	prev := t.ctx
	t.setCtx(ctx)
	defer t.setCtx(prev)
	return fn(t)
}

func stack() []byte { return debug.Stack() }
