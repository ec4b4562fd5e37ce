//go:build !linux

package task

import (
	"fmt"
	"runtime"
	"time"

	"github.com/pure-uring/uring"
)

// Off Linux there is no io_uring: every executor runs the fallback backend,
// whose I/O is Go's own (os, net, the netpoller) and, on Unix, non-blocking
// system calls on raw fds. What follows stands in for the ring backend's
// parts (exec_ring_linux.go) that the scheduler names.

// ringState is empty: no ring.
type ringState struct{}

// opSlot is the ring backend's op record; tasks never hold one here.
type opSlot struct{}

// defaultSpin is how long an idle executor checks for work before it parks.
const defaultSpin = 0

// startBackend starts the fallback: there is no other backend here.
func (ex *Executor) startBackend(c *config) error {
	return ex.startFallback(chooseBackend(c).Reason)
}

// chooseBackend is the fallback, with why.
func chooseBackend(c *config) Backend {
	if c.noIOUring {
		return Backend{Kind: BackendFallback, Reason: "WithoutIOUring was asked for"}
	}
	return Backend{Kind: BackendFallback, Reason: fmt.Sprintf("io_uring is Linux-only (this is %s)", runtime.GOOS)}
}

// Ring returns nil: there is no ring off Linux.
func (ex *Executor) Ring() *uring.Ring { return nil }

func (ex *Executor) ringPoll(bool)       {}
func (ex *Executor) cancelRingOps(*T)    {}
func (ex *Executor) keepForKernel()      {}
func (ex *Executor) ringStats(*Stats)    {}
func (ex *Executor) hasPosted() bool     { return ex.fb.sl.HasWork() }
func (ex *Executor) cancelAll()          {}
func (ex *Executor) quiet() bool         { return ex.fb.quiet() }
func (ex *Executor) waitClosing()        { ex.fb.waitClosing(ex) }
func (ex *Executor) closeBackend() error { return ex.fb.close() }

// Nop returns at once (it checks the task's context).
func (t *T) Nop() error {
	if err := t.check(); err != nil {
		return opError("nop", -1, err)
	}
	return nil
}

// Sleep parks the task for d; the task's context ends it early.
func (t *T) Sleep(d time.Duration) error {
	if err := t.fbSleep(max(d, 0)); err != nil {
		return opError("timeout", -1, err)
	}
	return nil
}
