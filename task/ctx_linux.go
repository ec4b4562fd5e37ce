//go:build linux

package task

import "context"

// ctxWatch is one context.AfterFunc shared by every parked-once task of
// the executor that uses the context (children inherit their parent's).
type ctxWatch struct {
	refs int
	stop func() bool
}

// watchCtx takes a reference on the executor's watch of ctx: when ctx is
// done, the executor interrupts the waits of the tasks whose context is
// done.
func (ex *Executor) watchCtx(ctx context.Context) {
	if ex.watches == nil {
		ex.watches = make(map[context.Context]*ctxWatch)
	}
	w := ex.watches[ctx]
	if w == nil {
		w = &ctxWatch{}
		w.stop = context.AfterFunc(ctx, func() { ex.post(remoteMsg{kind: msgPoke}) })
		ex.watches[ctx] = w
	}
	w.refs++
}

func (ex *Executor) unwatchCtx(ctx context.Context) {
	w := ex.watches[ctx]
	if w == nil {
		return
	}
	if w.refs--; w.refs == 0 {
		w.stop()
		delete(ex.watches, ctx)
	}
}

// pokeAll interrupts every parked task whose context is done.
func (ex *Executor) pokeAll() {
	for t := ex.live.lnext; t != &ex.live; t = t.lnext {
		if t.cancellable && !t.ready && t.parkKind != parkNone {
			if err := t.ctx.Err(); err != nil {
				ex.interrupt(t, err)
			}
		}
	}
}
