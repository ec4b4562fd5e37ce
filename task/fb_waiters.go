package task

// fdWaiters are the tasks waiting for one fd, by direction (several tasks
// may read one socket or pipe: readiness wakes them all, and those that
// find nothing wait again).
type fdWaiters struct{ rd, wr []*T }

// add records t as waiting for ev (pollIn or pollOut).
func (w *fdWaiters) add(t *T, ev uint32) {
	if ev == pollIn {
		w.rd = append(w.rd, t)
	} else {
		w.wr = append(w.wr, t)
	}
}

// remove forgets t's wait for ev.
func (w *fdWaiters) remove(t *T, ev uint32) {
	if ev == pollIn {
		w.rd = without(w.rd, t)
	} else {
		w.wr = without(w.wr, t)
	}
}

// without removes t from ts (keeping the order of the rest).
func without(ts []*T, t *T) []*T {
	for i, x := range ts {
		if x == t {
			copy(ts[i:], ts[i+1:])
			ts[len(ts)-1] = nil
			return ts[:len(ts)-1]
		}
	}
	return ts
}

// wakeAll wakes the tasks of ts and returns ts emptied (its array kept).
func wakeAll(ex *Executor, ts []*T) []*T {
	for i, t := range ts {
		t.fbFd = fbNoFd
		ex.wake(t)
		ts[i] = nil
	}
	return ts[:0]
}
