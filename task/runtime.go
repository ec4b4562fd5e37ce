package task

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"

	"github.com/pure-uring/uring/sys"
)

// Runtime is a set of executors, one per CPU by default. Ordinary
// goroutines start tasks on it (Go, SpawnOn on NextExecutor's executor) and get
// its files and connections from package goio (goio.On(rt)), whose
// blocking calls run as tasks on its executors.
type Runtime struct {
	execs []*Executor
	next  atomic.Uint32
}

// NewRuntime starts n executors (n <= 0: runtime.NumCPU()). While they
// run, GOMAXPROCS is at least n+1 (see WithGOMAXPROCSUnchanged).
func NewRuntime(n int, opts ...Option) (*Runtime, error) {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	rt := &Runtime{}
	for i := 0; i < n; i++ {
		ex, err := NewExecutor(opts...)
		if err != nil {
			_ = rt.Close()
			return nil, err
		}
		ex.rt, ex.id = rt, i
		rt.execs = append(rt.execs, ex)
	}
	return rt, nil
}

// Executors returns the runtime's executors.
func (rt *Runtime) Executors() []*Executor { return rt.execs }

// OnThread reports whether the caller is a task of one of the runtime's
// running executors, whose thread a blocking call would hold, whichever
// executor the call would go to. A package that offers blocking calls on
// the runtime to ordinary goroutines (package goio) checks it first and
// returns ErrWouldDeadlock instead of waiting for itself, as the
// runtime's own calls do.
//
// One gettid and a look at each executor's thread id (a plain load,
// written before NewExecutor returned); only a match checks that the
// executor still runs, as Executor.onThread requires: its thread lives
// until done is closed, so a match before then is the caller itself.
// Closing executors count: their tasks still run (the close wait) and
// still hold the thread. Allocates nothing.
func (rt *Runtime) OnThread() bool {
	tid := sys.Gettid()
	if tid == 0 { // a system whose thread ids sys does not know
		return false
	}
	for _, ex := range rt.execs {
		if ex.tid == tid && ex.onThreadRunning() {
			return true
		}
	}
	return false
}

// wouldDeadlock reports whether a blocking call that waits for ex would
// hold the thread of an executor from the caller: a task of ex itself, or
// of any executor of ex's runtime (its thread would stay blocked while
// the other executor works, and two executors waiting on each other's
// calls never return).
func (ex *Executor) wouldDeadlock() bool {
	if ex.rt != nil {
		return ex.rt.OnThread()
	}
	return ex.onThreadRunning()
}

// NextExecutor returns the runtime's executors in turn (round robin), to
// spread SpawnOn's tasks: SpawnOn(ctx, rt.NextExecutor(), fn).
func (rt *Runtime) NextExecutor() *Executor {
	return rt.execs[int(rt.next.Add(1)-1)%len(rt.execs)]
}

// Close closes every executor: tasks parked on I/O, channels and sleeps
// are woken with ErrClosed. From a task of the runtime it returns
// ErrWouldDeadlock and closes nothing.
func (rt *Runtime) Close() error {
	if rt.OnThread() {
		return ErrWouldDeadlock
	}
	var errs []error
	for _, ex := range rt.execs {
		if err := ex.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Go starts fn on the next executor (Runtime.NextExecutor), as SpawnOn does; wait
// with Handle.Wait. ctx is the task's context (see SpawnOn): its
// cancellation cancels the operation the task waits on, whose await then
// returns ctx's error. Handle.Wait's own ctx only bounds the wait.
func Go[R any](ctx context.Context, rt *Runtime, fn func(*T) (R, error)) *Handle[R] {
	return SpawnOn(ctx, rt.NextExecutor(), fn)
}

// SpawnAt starts fn on executor ex from a task of another executor (or
// the same one). Join works across executors.
func SpawnAt[R any](t *T, ex *Executor, fn func(*T) (R, error)) *Handle[R] {
	if ex == t.ex {
		h := SpawnContext(t.ctx, t, fn)
		h.doneCh = make(chan struct{}) // before the task can run
		return h
	}
	h := newRemote(t.ctx, ex, fn)
	ex.post(remoteMsg{kind: msgSpawn, t: h.t})
	return h
}

// call runs fn as a task on ex and waits for it to finish: ctx cancels
// its operation, and the call returns after the operation's CQE. From a
// task of ex, or of another executor of ex's runtime, it returns
// ErrWouldDeadlock and runs nothing.
func call[R any](ctx context.Context, ex *Executor, fn func(*T) (R, error)) (R, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if ex.wouldDeadlock() {
		var zero R
		return zero, ErrWouldDeadlock
	}
	h := SpawnOn(ctx, ex, fn)
	select {
	case <-h.doneCh:
	case <-ex.done:
		<-h.doneCh
	}
	return h.res, h.err
}

// Backend returns the backend the runtime's executors run on and why
// (every executor of a runtime chooses alike).
func (rt *Runtime) Backend() Backend {
	if rt == nil || len(rt.execs) == 0 {
		return Backend{}
	}
	return rt.execs[0].Backend()
}
