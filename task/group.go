package task

import (
	"context"
	"errors"
)

// wakeIf wakes t only if it still parks in the wait it registered with tok.
func (ex *Executor) wakeIf(t *T, tok uint32) {
	if t.parkTok == tok && t.parkKind == parkWait && !t.ready && !t.finished {
		ex.wake(t)
	}
}

// Group runs tasks and waits for all of them. With FailFast, the first
// error cancels the group's context, and so the other tasks' operations.
type Group struct {
	ex       *Executor
	ctx      context.Context
	cancel   context.CancelFunc
	failFast bool
	n        int
	err      error
	waiter   *T
	tok      uint32
}

// NewGroup makes a group whose tasks run with a context derived from t's.
func NewGroup(t *T, failFast bool) *Group {
	ctx, cancel := context.WithCancel(t.ctx)
	return &Group{ex: t.ex, ctx: ctx, cancel: cancel, failFast: failFast}
}

// Context returns the group's context (cancelled by FailFast, or by Wait's
// return).
func (g *Group) Context() context.Context { return g.ctx }

type groupTask struct {
	g   *Group
	fn  func(*T) error
	err error
}

func (gt *groupTask) run(t *T)       { gt.err = gt.fn(t); gt.fn = nil }
func (gt *groupTask) fail(err error) { gt.err = err; gt.fn = nil }
func (gt *groupTask) done(*T)        { gt.g.childDone(gt.err) }

// Go starts fn in the group, from a task of the group's executor.
func (g *Group) Go(t *T, fn func(*T) error) {
	t.runBacklog()
	gt := &groupTask{g: g, fn: fn}
	g.n++
	g.ex.start(g.ctx, g.ex.newTask(), gt)
}

func (g *Group) childDone(err error) {
	g.n--
	if err != nil {
		if g.err == nil {
			g.err = err
		}
		if g.failFast {
			g.cancel()
		}
	}
	if g.n == 0 && g.waiter != nil {
		g.ex.wakeIf(g.waiter, g.tok)
	}
}

// Wait waits for every task of the group and returns the first error. If
// t is cancelled first, Wait cancels the group (its tasks' operations are
// cancelled) and returns t's error at once, without waiting for the
// group's tasks: they finish afterwards, so memory they use is not free
// when Wait returns. Wait cancels the group's context when it returns.
func (g *Group) Wait(t *T) error {
	defer g.cancel()
	for g.n > 0 {
		if err := t.check(); err != nil {
			g.cancel()
			return err
		}
		g.waiter, g.tok = t, t.parkTok
		err := t.parkOn(parkWait)
		g.waiter = nil
		if err != nil {
			g.cancel()
			return err
		}
	}
	return g.err
}

// firstState is shared by the tasks of one FirstOf.
type firstState[R any] struct {
	ex     *Executor
	winner int
	res    R
	err    error
	parent *T
	tok    uint32
	left   int
}

type firstTask[R any] struct {
	st  *firstState[R]
	i   int
	fn  func(*T) (R, error)
	res R
	err error
}

func (ft *firstTask[R]) run(t *T) { ft.res, ft.err = ft.fn(t); ft.fn = nil }
func (ft *firstTask[R]) fail(err error) {
	if ft.err == nil {
		ft.err = err
	}
	ft.fn = nil
}
func (ft *firstTask[R]) done(*T) {
	st := ft.st
	st.left--
	if st.winner < 0 {
		st.winner, st.res, st.err = ft.i, ft.res, ft.err
		if st.parent != nil {
			st.ex.wakeIf(st.parent, st.tok)
		}
	}
}

// ErrNoTasks: FirstOf was given no functions.
var ErrNoTasks = errors.New("task: FirstOf: no functions given")

// FirstOf runs fns as tasks, returns the index and result of the first to
// finish, and cancels the others (they finish in the background; their
// results are dropped, fds they were opening are closed by the executor).
func FirstOf[R any](t *T, fns ...func(*T) (R, error)) (int, R, error) {
	var zero R
	if len(fns) == 0 {
		return -1, zero, ErrNoTasks
	}
	if err := t.check(); err != nil {
		return -1, zero, err
	}
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	st := &firstState[R]{ex: t.ex, winner: -1, left: len(fns)}
	for i, fn := range fns {
		ft := &firstTask[R]{st: st, i: i, fn: fn}
		t.ex.start(ctx, t.ex.newTask(), ft)
	}
	for st.winner < 0 {
		st.parent, st.tok = t, t.parkTok
		err := t.parkOn(parkWait)
		st.parent = nil
		if err != nil && st.winner < 0 {
			return -1, zero, err
		}
	}
	return st.winner, st.res, st.err
}
