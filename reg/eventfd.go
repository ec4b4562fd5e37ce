//go:build linux

package reg

import "github.com/pure-uring/uring/sys"

// RegisterEventfd makes the ring signal eventfd efd for every CQE it posts
// (IORING_REGISTER_EVENTFD, Linux 5.2), or, with async, only for CQEs of
// requests that completed asynchronously, not inline at submit
// (IORING_REGISTER_EVENTFD_ASYNC, Linux 5.6). The ring takes its own
// reference to the eventfd.
func RegisterEventfd(t Target, efd int, async bool) error {
	if efd < 0 || efd > 1<<31-1 {
		return argErr("RegisterEventfd", "efd", eq(efd)+" is not an fd")
	}
	op := sys.RegisterEventfd
	if async {
		op = sys.RegisterEventfdAsync
	}
	fd := int32(efd)
	_, err := register(t, op, &fd, 1)
	return err
}

// UnregisterEventfd stops the notifications (IORING_UNREGISTER_EVENTFD).
func UnregisterEventfd(t Target) error {
	_, err := registerNil(t, sys.UnregisterEventfd, 0)
	return err
}
