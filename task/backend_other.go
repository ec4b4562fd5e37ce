//go:build !linux

package task

import (
	"fmt"
	"runtime"

	"github.com/pure-uring/uring/task/internal/fallback"
)

// Off Linux there is no io_uring: every executor runs the fallback backend,
// whose I/O is Go's own (os, net, the netpoller) and, on Unix, non-blocking
// system calls on raw fds.

// defaultSpin is how long an idle executor checks for work before it parks.
const defaultSpin = 0

// startBackend starts the fallback: there is no other backend here.
func (ex *Executor) startBackend(c *config) error {
	f, err := fallback.New((*execSched)(ex))
	if err != nil {
		return err
	}
	ex.be, ex.backend = f, chooseBackend(c)
	return nil
}

// chooseBackend is the fallback, with why.
func chooseBackend(c *config) Backend {
	if c.noIOUring {
		return Backend{Kind: BackendFallback, Reason: "WithoutIOUring was asked for"}
	}
	return Backend{Kind: BackendFallback, Reason: fmt.Sprintf("io_uring is Linux-only (this is %s)", runtime.GOOS)}
}
