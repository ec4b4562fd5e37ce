//go:build linux

package reg

import (
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
)

// SetClock selects the clock of the ring's wait timeouts
// (IORING_REGISTER_CLOCK, Linux 6.12): unix.CLOCK_MONOTONIC (the default)
// or unix.CLOCK_BOOTTIME (counts suspended time).
func SetClock(t Target, clockID int) error {
	if clockID != unix.CLOCK_MONOTONIC && clockID != unix.CLOCK_BOOTTIME {
		return argErr("SetClock", "clockID", eq(clockID)+" is neither CLOCK_MONOTONIC nor CLOCK_BOOTTIME")
	}
	c := sys.ClockRegister{ClockID: uint32(clockID)}
	_, err := register(t, sys.RegisterClock, &c, 0)
	return err
}
