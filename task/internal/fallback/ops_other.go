//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package fallback

import "github.com/pure-uring/uring/task/internal/iop"

// Without raw fds (Windows and the rest) an executor runs Nop and Sleep;
// I/O goes through package goio's adapters, on Go's own os and net.

// run runs wt's operation.
func (f *Backend) run(wt *wait, first bool) iop.Status {
	switch wt.op.Code {
	case iop.Nop:
		return wt.w.Finish(0, nil)
	case iop.Sleep:
		return f.sleep(wt)
	}
	return wt.w.Finish(0, iop.Unsupported(wt.op.Code, "this operation"))
}

func callBlocking(op *iop.Op) (int, error) { return 0, iop.NeedsRing("this operation") }

func (f *Backend) callWouldWait(*wait, error) (int, uint32, bool) { return 0, 0, false }

func restoreFlags(fd, fl int) {}

func closeFd(fd int) {}
