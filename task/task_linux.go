//go:build linux

package task

import (
	"context"
	"net/netip"
	"runtime/debug"
)

// T is a task's handle: every await is a method of it (or takes it). It is
// valid only inside the task's own function, on its executor.
type T struct {
	ex   *Executor
	w    *worker
	body runner
	ctx  context.Context
	x    *tExtra // rarely used state, allocated on first use

	// Scheduling state, touched only on the executor's thread.
	ready       bool // woken, not yet resumed
	onStack     bool // running, or resuming another coroutine inside its park
	finished    bool
	parkKind    uint8
	hasDeadline bool
	cancellable bool
	chanClosed  bool   // woken from a Send by Close
	parkTok     uint32 // bumped on every wake: stale wait registrations see it
	pending     int32  // CQEs it still waits for
	res         Result
	parkErr     error
	op          *opSlot         // the op a parkOp task waits for
	watching    context.Context // the context whose cancellation it is registered for
	deadline    int64           // UnixNano, with hasDeadline

	joiner       *T // one joiner (the common case)
	waitFor      *T // the task it joins
	lprev, lnext *T // list of unfinished tasks
}

// tExtra holds what few tasks use.
type tExtra struct {
	chain   []*opSlot // the ops of a link chain it waits for
	one     [1]*opSlot
	joiners []*T // more joiners
	hook    doneHook
	doneCh  chan struct{}

	// Outputs an op's slot holds, decoded before the slot is freed.
	peer   netip.AddrPort
	oobn   int
	rflags int
}

func (t *T) ext() *tExtra {
	if t.x == nil {
		t.x = new(tExtra)
	}
	return t.x
}

func (t *T) doneChan() chan struct{} {
	if t.x == nil {
		return nil
	}
	return t.x.doneCh
}

const (
	parkNone uint8 = iota
	parkYield
	parkOp   // waits for CQEs: cancelled with ASYNC_CANCEL
	parkWait // waits on a task, channel or group: interrupted directly
)

// Result is the outcome of one CQE.
type Result struct {
	Res   int32
	Flags uint32
}

type runner interface {
	run(t *T)
	fail(err error)
}

type doneHook interface{ taskDone(t *T) }

// Context returns the task's context.
func (t *T) Context() context.Context { return t.ctx }

// Executor returns the executor the task runs on.
func (t *T) Executor() *Executor { return t.ex }

// Handle joins a task and holds its typed result.
type Handle[R any] struct {
	t   T
	fn  func(*T) (R, error)
	res R
	err error
}

func (h *Handle[R]) run(t *T) {
	h.res, h.err = h.fn(t)
	h.fn = nil
}

func (h *Handle[R]) fail(err error) {
	if h.err == nil {
		h.err = err
	}
	h.fn = nil
}

// Done reports whether the task has finished. From an ordinary goroutine
// it is safe on handles of SpawnOn, Go and SpawnAt (it checks their done
// channel, which orders the result); from a task, on any handle of its
// executor.
func (h *Handle[R]) Done() bool {
	if ch := h.t.doneChan(); ch != nil {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	return h.t.finished
}

// Spawn starts fn as a new task on t's executor, with t's context. It
// returns at once; the task runs when t parks or yields.
func Spawn[R any](t *T, fn func(*T) (R, error)) *Handle[R] {
	return SpawnContext(t, t.ctx, fn)
}

// SpawnContext is Spawn with the new task's own context: its cancellation
// cancels the operation the task waits on.
func SpawnContext[R any](t *T, ctx context.Context, fn func(*T) (R, error)) *Handle[R] {
	h := &Handle[R]{fn: fn}
	ex := t.ex
	h.t.init(ex, h, ctx)
	if ex.closing {
		h.t.finish(ErrClosed)
		return h
	}
	ex.linkLive(&h.t)
	ex.newq.push(&h.t)
	return h
}

// SpawnOn starts fn on ex from any goroutine; wait with h.Wait.
func SpawnOn[R any](ex *Executor, ctx context.Context, fn func(*T) (R, error)) *Handle[R] {
	h := &Handle[R]{fn: fn}
	h.t.init(ex, h, ctx)
	h.t.ext().doneCh = make(chan struct{})
	if ctx == nil {
		ctx = context.Background()
	}
	ex.post(remoteMsg{kind: msgSpawn, t: &h.t})
	return h
}

// Run runs fn on ex and waits for it from any goroutine; ctx cancels both
// the wait and the task's operations.
func Run[R any](ex *Executor, ctx context.Context, fn func(*T) (R, error)) (R, error) {
	return SpawnOn(ex, ctx, fn).Wait(ctx)
}

func (t *T) init(ex *Executor, body runner, ctx context.Context) {
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
		t.ex.unwatchCtx(t.watching)
		t.watching = nil
	}
}

// watchCtx registers the poke of a cancellable context before t parks.
func (t *T) watchCtx() {
	if t.cancellable && t.watching == nil {
		t.ex.watchCtx(t.ctx)
		t.watching = t.ctx
	}
}

// Join waits for the task of h to finish and returns its result. A panic
// in the task is returned as *PanicError. A cancelled t stops waiting with
// its context's error (the joined task keeps running).
func (h *Handle[R]) Join(t *T) (R, error) {
	if h.t.ex != t.ex {
		// Another executor's task: its done channel orders its result.
		if err := t.waitRemote(&h.t); err != nil {
			var zero R
			return zero, err
		}
		return h.res, h.err
	}
	if !h.t.finished {
		if err := t.waitTask(&h.t); err != nil {
			var zero R
			return zero, err
		}
	}
	return h.res, h.err
}

// Wait waits from an ordinary goroutine for a task started with SpawnOn.
func (h *Handle[R]) Wait(ctx context.Context) (R, error) {
	if h.t.doneChan() == nil {
		var zero R
		return zero, &ArgError{"Handle.Wait", "h", "was not started with SpawnOn (use Join from a task)"}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	select {
	case <-h.t.x.doneCh:
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

// waitRemote joins a task of another executor: park until its done channel
// is closed (a helper goroutine turns that into a wake).
func (t *T) waitRemote(u *T) error {
	if u.doneChan() == nil {
		return &ArgError{"Join", "h", "belongs to another executor and was not started with SpawnOn"}
	}
	select {
	case <-u.x.doneCh:
		return nil
	default:
	}
	ex, tok := t.ex, t.parkTok
	go func() {
		<-u.x.doneCh
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
		x.joiners = nil
		if x.hook != nil {
			x.hook.taskDone(t)
		}
		if x.doneCh != nil {
			close(x.doneCh)
		}
	}
}

func (ex *Executor) linkLive(t *T) {
	t.lprev, t.lnext = ex.live.lprev, &ex.live
	ex.live.lprev.lnext = t
	ex.live.lprev = t
	ex.nlive++
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
	if !ex.runnable() {
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
		return &ArgError{"Scope", "ctx", "is nil"}
	}
	prev := t.ctx
	t.setCtx(ctx)
	defer t.setCtx(prev)
	return fn(t)
}

func stack() []byte { return debug.Stack() }
