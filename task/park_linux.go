//go:build linux

package task

import (
	"time"

	"github.com/pure-uring/uring/sys"
)

// spinWait checks the ring for up to d without a system call; it reports
// whether there is something to reap or a message to drain. It never
// spins where deferred completions wait without showing in the SQ flags
// (DEFER_TASKRUN without TASKRUN_FLAG).
func (ex *Executor) spinWait(d time.Duration) bool {
	if d <= 0 {
		return false
	}
	r := ex.ring
	fl := r.SetupFlags()
	if fl&sys.SetupDeferTaskrun != 0 && fl&sys.SetupTaskrunFlag == 0 {
		return false
	}
	c := ex.core
	var start time.Time
	for i := 0; ; i++ {
		// SQ_TASKRUN: deferred completion work waits for a GETEVENTS enter.
		if r.SQFlags()&sys.SQTaskrun != 0 || r.CQReady() > 0 || c.HasWork() {
			return true
		}
		if i&31 == 0 {
			if i == 0 {
				start = time.Now()
			} else if time.Since(start) >= d {
				return false
			}
		}
	}
}
