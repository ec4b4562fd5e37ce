//go:build linux

package reg

import (
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
)

// SetIOWQAffinity pins the ring's io-wq workers to the CPUs in set
// (IORING_REGISTER_IOWQ_AFF, Linux 5.14). With SQPOLL it applies to the
// SQPOLL thread's io-wq.
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

// IOWQMaxWorkers returns the current limits (IORING_REGISTER_IOWQ_MAX_WORKERS,
// Linux 5.15, with zeros).
func IOWQMaxWorkers(t Target) (Workers, error) {
	return SetIOWQMaxWorkers(t, Workers{})
}

// SetIOWQMaxWorkers sets the limits that are nonzero in w and returns the
// previous ones.
func SetIOWQMaxWorkers(t Target, w Workers) (Workers, error) {
	arg := [2]uint32{sys.IOWQBound: w.Bound, sys.IOWQUnbound: w.Unbound}
	if _, err := register(t, sys.RegisterIOWQMaxWorkers, &arg, 2); err != nil {
		return Workers{}, err
	}
	return Workers{Bound: arg[sys.IOWQBound], Unbound: arg[sys.IOWQUnbound]}, nil
}
