//go:build linux

package reg

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
)

// io-wq belongs to a thread, not a ring: each thread that makes or submits
// to a ring gets one (an SQPOLL ring's is its SQ thread's). Affinity is
// set on the calling thread's io-wq only; worker limits are kept by the
// ring and applied to the io-wq of every thread that uses it, but read
// back from the calling thread's. So make these calls from the thread
// that submits, with the goroutine locked (runtime.LockOSThread).

// ErrNoIOWQ: the calling thread has no io-wq (it never made or submitted
// to an io_uring), so there are no limits to read.
var ErrNoIOWQ = errors.New("reg: the calling thread has no io-wq to read limits from: io-wq is per thread; " +
	"call from the thread that made or submits to the ring, locked with runtime.LockOSThread")

// SetIOWQAffinity pins the io-wq workers of the calling thread (of the SQ
// thread, on SQPOLL rings) to the CPUs in set (IORING_REGISTER_IOWQ_AFF,
// Linux 5.14).
func SetIOWQAffinity(t Target, set *unix.CPUSet) error {
	if set == nil || set.Count() == 0 {
		return argErr("SetIOWQAffinity", "set", "is empty")
	}
	_, err := register(t, sys.RegisterIOWQAff, set, uint32(sys.SizeOf[unix.CPUSet]()))
	return err
}

// ClearIOWQAffinity lets io-wq workers run on any CPU again
// (IORING_UNREGISTER_IOWQ_AFF).
func ClearIOWQAffinity(t Target) error {
	_, err := registerNil(t, sys.UnregisterIOWQAff, 0)
	return err
}

// Workers are io-wq worker limits: Bound for requests on regular files and
// block devices, Unbound for the rest (sockets, pipes…). 0 means "leave as
// is" when setting.
type Workers struct {
	Bound   uint32
	Unbound uint32
}

// IOWQMaxWorkers returns the current limits of the calling thread's io-wq
// (the SQ thread's on SQPOLL rings) (IORING_REGISTER_IOWQ_MAX_WORKERS,
// Linux 5.15, with zeros); ErrNoIOWQ when the thread has none.
func IOWQMaxWorkers(t Target) (Workers, error) {
	w, err := SetIOWQMaxWorkers(t, Workers{})
	if err == nil && w == (Workers{}) {
		// A live io-wq never has a zero limit: the kernel found none.
		return w, ErrNoIOWQ
	}
	return w, err
}

// SetIOWQMaxWorkers sets the ring's limits that are nonzero in w (applied
// to the io-wq of every thread using the ring) and returns the calling
// thread's previous ones, zero when the thread has no io-wq.
func SetIOWQMaxWorkers(t Target, w Workers) (Workers, error) {
	arg := [2]uint32{sys.IOWQBound: w.Bound, sys.IOWQUnbound: w.Unbound}
	if _, err := register(t, sys.RegisterIOWQMaxWorkers, &arg, 2); err != nil {
		return Workers{}, err
	}
	return Workers{Bound: arg[sys.IOWQBound], Unbound: arg[sys.IOWQUnbound]}, nil
}
