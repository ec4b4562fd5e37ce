//go:build linux

package reg

import (
	"errors"
	"os"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// Resize changes the SQ and CQ sizes of a live ring, keeping pending SQEs
// and CQEs (IORING_REGISTER_RESIZE_RINGS, Linux 6.13; WithDeferTaskrun
// rings only). cqEntries 0 means twice sqEntries. It is uring.Ring.Resize
// with the kernel's errno explained.
func Resize(r *uring.Ring, sqEntries, cqEntries uint32) error {
	err := r.Resize(sqEntries, cqEntries)
	var se *os.SyscallError
	if errors.As(err, &se) {
		return wrap(sys.RegisterResizeRings, err)
	}
	return err
}
