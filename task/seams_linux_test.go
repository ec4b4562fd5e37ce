//go:build linux

package task

import "time"

// Test seams: the tests set and read the executor's internals through
// these rather than through its fields.

// setTrimEveryForTest sets how often the executor may trim its idle
// workers (0: before every sleep; the default is trimEvery), on its
// thread.
func (ex *Executor) setTrimEveryForTest(d time.Duration) error {
	return ex.Do(func() { ex.trimEvery = d })
}

// idleWorkersForTest is the number of idle worker coroutines (executor
// thread: call it through onExec).
func (ex *Executor) idleWorkersForTest() int { return len(ex.idle) }

// trimmedForTest is the number of idle workers trimmed so far (executor
// thread: call it through onExec).
func (ex *Executor) trimmedForTest() int { return ex.stats.trimmed }

// pokesForTest is the number of tasks context cancellations looked at so
// far (executor thread: from a task or through onExec).
func (ex *Executor) pokesForTest() int { return ex.stats.pokes }

// signalledForTest reports whether a goroutine was made runnable since
// the executor's last wait, which makes its next wait park at once
// instead of spinning or waiting in the kernel (executor thread: from a
// task).
func (ex *Executor) signalledForTest() bool { return ex.signalled }
