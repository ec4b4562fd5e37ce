package task

import (
	"time"

	"github.com/pure-uring/uring/task/internal/iop"
)

// execSched is the executor as its backend sees it (iop.Sched): the
// methods stay off Executor's public method set.
type execSched Executor

func (s *execSched) Drain()             { (*Executor)(s).drain() }
func (s *execSched) Runnable() bool     { return (*Executor)(s).runnable() }
func (s *execSched) Trim(now time.Time) { (*Executor)(s).trimIdle(now) }

func (s *execSched) Signalled() bool {
	was := s.signalled
	s.signalled = false
	return was
}

func (s *execSched) Post(e iop.Event) { (*Executor)(s).post(remoteMsg{kind: msgEvent, ev: e}) }

// taskWake is a task as its backend sees it (iop.Task).
type taskWake T

// Wake makes the task, parked in an operation, runnable.
func (w *taskWake) Wake() {
	t := (*T)(w)
	t.ex.wake(t)
}
