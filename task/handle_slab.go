package task

// Handles of executor-thread spawns come from blocks: Spawn and
// SpawnContext carve the next handle from the block of the type spawned
// last, and allocate a new block when it is used up or the type changes.
// A loop of spawns then makes one allocation per handleSlabLen tasks
// instead of one per task (the collector's work drops with it). A block
// stays reachable while any of its handles is: a program that keeps one
// handle of a run keeps the block's memory (handleSlabLen handles, and
// their results) with it. The executor itself lets go of its block when
// it waits with nothing to run (Executor.poll), so a dropped handle's
// result is not kept past a spawning burst.

// handleSlabLen is the number of handles in a block.
const handleSlabLen = 16

// handleSlab is a block of handles of one type; those from next on are
// unused. One allocation.
type handleSlab[R any] struct {
	hs   [handleSlabLen]Handle[R]
	next int
}

// newHandle returns a handle of the task record u of ex (executor
// thread).
func newHandle[R any](ex *Executor, u *T) *Handle[R] {
	var h *Handle[R]
	if sl, ok := ex.slab.(*handleSlab[R]); ok && sl.next < handleSlabLen {
		h = &sl.hs[sl.next]
		sl.next++
	} else {
		sl := &handleSlab[R]{next: 1} // a new block, ex's from now on
		ex.slab = sl
		h = &sl.hs[0]
	}
	h.t, h.gen = u, u.gen
	return h
}
