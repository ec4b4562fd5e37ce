package fallback

import (
	"container/heap"
	"time"
)

// timerEntry ends a wait wt (the one with seq) at when: a sleep, or a
// deadline that cancels an operation's readiness wait.
type timerEntry struct {
	when  int64 // UnixNano
	wt    *wait
	seq   uint32
	sleep bool
}

type timerHeap []timerEntry

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].when < h[j].when }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)        { *h = append(*h, x.(timerEntry)) }
func (h *timerHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = timerEntry{}
	*h = old[:len(old)-1]
	return e
}

// next is the earliest deadline, or zero.
func (h timerHeap) next() time.Time {
	if len(h) == 0 {
		return time.Time{}
	}
	return time.Unix(0, h[0].when)
}

func pushTimer(h *timerHeap, e timerEntry) { heap.Push(h, e) }
func popTimer(h *timerHeap) timerEntry     { return heap.Pop(h).(timerEntry) }
