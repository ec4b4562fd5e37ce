package task

// Joining the task spawned last, before it started, runs it right there,
// on the joiner's coroutine, as a plain call: the joiner would only wait
// for it, and the switch to a worker coroutine and back (the bulk of a
// spawn-then-join) is saved. If the task parks on an operation, it parks
// the shared coroutine; the joiner continues when it returns. Joining an
// earlier one still waits: the tasks queued after it then start in a row
// on one worker, which is as cheap per task and keeps them concurrent.

// canRunInline reports whether t may run u inline: u is the last task
// queued to start, both on this executor, which is not closing, and t's
// Join either cannot be
// interrupted (t's context cannot be cancelled) or is interrupted exactly
// when u is cancelled too (the same context, as Spawn gives): u then
// returns soon after, and t's Join reports the cancellation as a wait
// would. A u with a context of its own that t's cancellation would not
// reach must keep running while t leaves: that stays a wait.
func (t *T) canRunInline(u *T) bool {
	if u.ex != t.ex || t.ex.closing || !t.ex.lastNew(u) {
		return false
	}
	return !t.cancellable || (u.cancellable && u.ctx.Done() == t.ctx.Done())
}

// runInline runs the unstarted task u on t's coroutine until it finishes,
// with what a worker does around a task (runBody); a stop (a forced Close)
// finishes u and keeps unwinding t.
func (t *T) runInline(u *T) {
	ex := t.ex
	ex.newq.dropLast() // u's entry (canRunInline checked it)
	ex.stats.inlined++
	u.w = t.w // its parks yield t's coroutine; resuming it resumes u
	u.onStack = true
	if runBody(u) {
		panic(errStop) // the coroutine is being stopped: unwind t too
	}
	ex.recycle(u)
}
