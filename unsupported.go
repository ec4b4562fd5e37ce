package uring

import (
	"errors"
	"syscall"

	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sys"
)

// setupError explains io_uring_setup(2)'s err for a ring asked with flags:
// EPERM and ENOSYS name kernel.io_uring_disabled or seccomp (an
// *UnsupportedError for "io_uring"); EINVAL, when the setup-flag probe says
// the kernel lacks one of flags, is that flag's *UnsupportedError (the
// lowest such flag, with the release that added it) carrying err. Any
// other answer is returned as is: the kernel knows every flag, so the
// EINVAL is about the values (entries, CQ size, SQ thread CPU).
func setupError(flags sys.SetupFlags, err error) error {
	if !errors.Is(err, syscall.EINVAL) || flags == 0 {
		return feature.Explain(err)
	}
	for bit := sys.SetupFlags(1); bit != 0; bit <<= 1 {
		if flags&bit == 0 {
			continue
		}
		if ue := feature.AsUnsupported(feature.SetupFlag(bit)); ue != nil {
			e := *ue
			e.Err = err // New's own answer, not the probe's
			return &e
		}
	}
	return err
}
