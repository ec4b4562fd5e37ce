package fallback

import "github.com/pure-uring/uring/task/internal/iop"

// fdWaiters are the tasks waiting for one fd, by direction (several tasks
// may read one socket or pipe: readiness wakes them all, and those that
// find nothing wait again).
type fdWaiters struct{ rd, wr []*wait }

// add records wt as waiting for ev (pollIn or pollOut).
func (w *fdWaiters) add(wt *wait, ev uint32) {
	if ev == pollIn {
		w.rd = append(w.rd, wt)
	} else {
		w.wr = append(w.wr, wt)
	}
}

// remove forgets wt's wait for ev.
func (w *fdWaiters) remove(wt *wait, ev uint32) {
	if ev == pollIn {
		w.rd = without(w.rd, wt)
	} else {
		w.wr = without(w.wr, wt)
	}
}

// without removes wt from ts (keeping the order of the rest).
func without(ts []*wait, wt *wait) []*wait {
	for i, x := range ts {
		if x == wt {
			copy(ts[i:], ts[i+1:])
			ts[len(ts)-1] = nil
			return ts[:len(ts)-1]
		}
	}
	return ts
}

// wakeAll ends the readiness waits of ts (their tasks try again) and
// returns ts emptied (its array kept).
func wakeAll(f *Backend, ts []*wait) []*wait {
	for i, wt := range ts {
		wt.fd = noFd
		f.wake(wt, iop.Again)
		ts[i] = nil
	}
	return ts[:0]
}
