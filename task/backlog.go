package task

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
