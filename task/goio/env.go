package goio

import (
	"context"
	"sync"

	"github.com/pure-uring/uring/task"
)

// Env is the goroutine face of a *task.Runtime: the net and os adapters
// (Listen, Dial, ListenPacket, OpenFile) and blocking calls on raw fds
// (Pread, Pwrite, Open, CloseFd, Fsync, Accept, Recv, Send, Statx),
// each for ordinary goroutines. Get one with On; it is safe for
// concurrent use. What it makes belongs to the runtime: closing the
// runtime (or the executor it was placed on) closes it, and ends the
// calls waiting on it with net.ErrClosed (or task.ErrClosed).
type Env struct {
	rt *task.Runtime
	// One registry per executor of the runtime: the sockets and files
	// placed there whose waits are Go's own; the executor's Close closes
	// them (an AtClose function). Read-only after On.
	regs map[*task.Executor]*closers
}

// envs caches one Env per runtime (On); an Env leaves it when the
// runtime closes.
var envs sync.Map // *task.Runtime → *Env

// On returns the Env of rt: the same one on every call for a runtime
// (made on the first, cheap after that). On(nil) is nil, whose methods
// return an error.
func On(rt *task.Runtime) *Env {
	if rt == nil {
		return nil
	}
	if e, ok := envs.Load(rt); ok {
		return e.(*Env)
	}
	e := &Env{rt: rt, regs: make(map[*task.Executor]*closers)}
	for _, ex := range rt.Executors() {
		e.regs[ex] = &closers{}
	}
	if old, loaded := envs.LoadOrStore(rt, e); loaded {
		return old.(*Env)
	}
	closing := false
	for ex, r := range e.regs {
		if !ex.AtClose(func() { r.closeAll(); envs.CompareAndDelete(rt, e) }) {
			r.closeAll() // closing already: what is added now is refused
			closing = true
		}
	}
	if closing {
		envs.CompareAndDelete(rt, e)
	}
	return e
}

// pick is the executor of a new socket, file or call (the runtime's round
// robin) and its registry.
// closing reports whether the runtime's Close has begun: a listener or
// socket made now would be closed at once, so none is made.
func (e *Env) closing() bool {
	for _, r := range e.regs {
		if r.isDone() {
			return true
		}
	}
	return false
}

func (e *Env) pick() (*task.Executor, *closers) {
	ex := e.rt.NextExecutor()
	return ex, e.regs[ex]
}

// call runs fn as a task on ex and waits for it to finish: ctx cancels
// its operation, and the call returns after the operation's CQE (its
// buffers are free again when it returns, also when ctx was cancelled).
// From a task of any executor of rt it returns task.ErrWouldDeadlock and
// runs nothing: it would hold a thread the call may need.
func call[R any](ctx context.Context, rt *task.Runtime, ex *task.Executor, fn func(*task.T) (R, error)) (R, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if rt.OnThread() {
		var zero R
		return zero, task.ErrWouldDeadlock
	}
	// Wait without ctx: the task returns soon after ctx ends (its
	// operation cancelled), and the call waits for that.
	return task.SpawnOn(ctx, ex, fn).Wait(context.Background())
}
