package task

import (
	"time"

	"github.com/pure-uring/uring/task/internal/iop"
)

// BackendKind names the I/O mechanism under an executor.
type BackendKind uint8

const (
	// BackendIOUring: operations are io_uring requests on the executor's
	// ring (Linux with io_uring available).
	BackendIOUring BackendKind = iota + 1
	// BackendFallback: operations are Go's own I/O, without io_uring —
	// non-blocking system calls with the executor waiting for readiness
	// (epoll on Linux), blocking ones on goroutines while only the task
	// parks (package goio's adapters wait in Go's netpoller, or off Linux
	// are Go's net and os). It runs where io_uring is not there (another
	// OS, kernel.io_uring_disabled, a seccomp filter that denies
	// io_uring_setup) and when WithoutIOUring asks for it.
	// Operations only io_uring has (fixed buffers and files, provided-buffer
	// rings, T.Await of a raw SQE, links) return an error wrapping
	// uring.ErrUnsupported that names what is missing.
	BackendFallback
)

func (k BackendKind) String() string {
	switch k {
	case BackendIOUring:
		return "io_uring"
	case BackendFallback:
		return "fallback"
	}
	return "none"
}

// Backend says which mechanism an executor (or a runtime) runs on, and
// why it was chosen.
type Backend struct {
	Kind   BackendKind `json:"kind"`
	Reason string      `json:"reason"`
}

func (b Backend) String() string { return b.Kind.String() + " (" + b.Reason + ")" }

// Backend returns the executor's backend and why it runs on it.
func (ex *Executor) Backend() Backend {
	if ex == nil {
		return Backend{}
	}
	return ex.backend
}

// ChooseBackend says which backend NewExecutor and NewRuntime would run on
// here, with these options, and why, without starting one (uringctl probe
// prints it).
func ChooseBackend(opts ...Option) Backend {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return chooseBackend(&c)
}

// MarshalText writes the kind's name ("io_uring", "fallback").
func (k BackendKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a name MarshalText wrote.
func (k *BackendKind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "io_uring":
		*k = BackendIOUring
	case "fallback":
		*k = BackendFallback
	case "none", "":
		*k = 0
	default:
		return argError("BackendKind.UnmarshalText", "text", "= "+string(b)+" names no backend")
	}
	return nil
}

// execSched is the executor as its backend sees it (iop.Sched): the
// methods stay off Executor's public method set.
type execSched Executor

func (s *execSched) Drain()             { (*Executor)(s).drain() }
func (s *execSched) Runnable() bool     { return (*Executor)(s).runnable() }
func (s *execSched) Closing() bool      { return s.closing }
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
