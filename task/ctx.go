package task

import "context"

// ctxWatch is one context.AfterFunc shared by every task of the executor
// that parked with the same cancellable context (children inherit their
// parent's): the tasks registered with it form a list, so that its
// cancellation pokes those tasks and no others.
type ctxWatch struct {
	first *T // list through T.wnext/T.wprev
	stop  func() bool
}

// watchCtx registers t with the executor's watch of ctx: when ctx is done,
// the executor interrupts the waits of the tasks on the watch.
func (ex *Executor) watchCtx(ctx context.Context, t *T) {
	if ex.watches == nil {
		ex.watches = make(map[context.Context]*ctxWatch)
	}
	w := ex.watches[ctx]
	if w == nil {
		w = &ctxWatch{}
		w.stop = context.AfterFunc(ctx, func() { ex.post(remoteMsg{kind: msgPoke, w: w}) })
		ex.watches[ctx] = w
	}
	t.wprev, t.wnext = nil, w.first
	if w.first != nil {
		w.first.wprev = t
	}
	w.first = t
}

// unwatchCtx takes t off the watch of ctx; the last task stops the watch.
func (ex *Executor) unwatchCtx(ctx context.Context, t *T) {
	w := ex.watches[ctx]
	if w == nil {
		return
	}
	if t.wprev != nil {
		t.wprev.wnext = t.wnext
	} else {
		w.first = t.wnext
	}
	if t.wnext != nil {
		t.wnext.wprev = t.wprev
	}
	t.wprev, t.wnext = nil, nil
	if w.first == nil {
		w.stop()
		delete(ex.watches, ctx)
	}
}

// poke interrupts the parked tasks of watch w (its context is done). A
// watch that has emptied since the poke was posted has no tasks left.
func (ex *Executor) poke(w *ctxWatch) {
	for t := w.first; t != nil; {
		next := t.wnext // an interrupt may unlink t
		ex.stats.pokes++
		if !t.ready && t.parkKind != parkNone {
			if err := t.ctx.Err(); err != nil {
				ex.interrupt(t, err)
			}
		}
		t = next
	}
}
