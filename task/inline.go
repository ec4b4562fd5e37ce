package task

// Tasks run nested in another task's coroutine: a task joined before it
// started, and the backlog of tasks a spawner starts itself.
//
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

// spawnBacklog bounds the tasks queued to start. A task that spawns while
// this many wait runs them first, nested in its coroutine as a parking
// task does, so a loop spawning a million tasks before joining any reuses
// a few pooled records and workers instead of holding a record per queued
// task (and the collector's work for all of them).
const spawnBacklog = 128

// runBacklog starts the queued tasks when there are spawnBacklog of them
// (t is the running task, about to spawn).
func (t *T) runBacklog() { t.runNew(spawnBacklog) }

// runNew starts queued tasks, nested in t's coroutine, while at least
// least of them wait. t counts as a woken task on the resume stack
// meanwhile: a task started here that parks unwinds straight back to it,
// instead of waiting for completions above a task that is not waiting
// for anything.
func (t *T) runNew(least int) {
	ex := t.ex
	if ex.newq.len() < least || ex.depth >= maxDepth || ex.closing {
		return
	}
	t.ready = true
	ex.readyOnStack++
	for ex.newq.len() >= least && ex.depth < maxDepth && !ex.closing {
		ex.startNew()
	}
	t.ready = false
	ex.readyOnStack--
}
