//go:build linux

package bench

import (
	"sync"

	"github.com/pure-uring/uring/task"
)

// The task layer's counters of a project implementation's last run: the
// runs note them before they close their executors, measure takes them.
var (
	statsMu   sync.Mutex
	lastStats *task.Stats
)

// noteStats keeps s (summed with what this run noted already: a server
// of several executors notes each).
func noteStats(s task.Stats) {
	statsMu.Lock()
	defer statsMu.Unlock()
	if lastStats == nil {
		lastStats = &s
		return
	}
	lastStats.Add(s)
}

// noteExecutor notes ex's counters (before it closes).
func noteExecutor(ex *task.Executor) {
	if st, err := ex.Stats(); err == nil {
		noteStats(st)
	}
}

// takeTaskStats returns what the last run noted (nil: none) and clears it.
func takeTaskStats() any {
	statsMu.Lock()
	defer statsMu.Unlock()
	s := lastStats
	lastStats = nil
	if s == nil {
		return nil
	}
	return s
}
