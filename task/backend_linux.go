package task

import (
	"errors"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/task/internal/fallback"
	"github.com/pure-uring/uring/task/internal/ring"
)

// defaultSpin is how long an idle executor checks the ring before it
// sleeps, unless WithSpin says otherwise.
const defaultSpin = poll.DefaultSpin

// startBackend makes the executor's ring on its thread, or the fallback
// where io_uring is not there (disabled, denied, or WithoutIOUring).
func (ex *Executor) startBackend(c *config) error {
	b := chooseBackend(c)
	if b.Kind == BackendFallback {
		f, err := fallback.New((*execSched)(ex))
		if err != nil {
			return err
		}
		ex.be, ex.backend = f, b
		return nil
	}
	r, err := ring.New(ring.Config{
		Entries: c.entries, RingOpts: c.ringOpts, NoDefer: c.noDefer, NoPark: c.noPark,
		Spin: c.spin, FixedSpin: c.fixedSpin,
	}, (*execSched)(ex))
	if err != nil {
		return err
	}
	ex.be, ex.streams, ex.raw, ex.ring, ex.backend = r, r, r, r.Ring(), b
	return nil
}

// chooseBackend is the backend for c: io_uring itself missing (not in the
// kernel, kernel.io_uring_disabled, a seccomp filter that denies it) or
// WithoutIOUring means the fallback; a ring option the kernel lacks is
// the caller's error, not a reason to fall back.
func chooseBackend(c *config) Backend {
	if c.noIOUring {
		return Backend{Kind: BackendFallback, Reason: "WithoutIOUring was asked for"}
	}
	if err := uring.CheckAvailable(); errors.Is(err, uring.ErrUnsupported) {
		return Backend{Kind: BackendFallback, Reason: err.Error()}
	}
	return Backend{Kind: BackendIOUring, Reason: "io_uring is available"}
}
