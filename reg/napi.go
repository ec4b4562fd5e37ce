//go:build linux

package reg

import (
	"time"

	"github.com/pure-uring/uring/sys"
)

// NAPITracking is how the ring finds the NAPI instances to busy-poll.
type NAPITracking uint32

const (
	NAPIDynamic  = NAPITracking(sys.NAPITrackingDynamic)  // learn ids from the sockets requests use
	NAPIStatic   = NAPITracking(sys.NAPITrackingStatic)   // only ids added with AddNAPIID
	NAPIInactive = NAPITracking(sys.NAPITrackingInactive) // no busy polling
)

// NAPIConfig configures NAPI busy polling while the ring waits for CQEs.
type NAPIConfig struct {
	BusyPoll       time.Duration // busy-poll time, microsecond resolution
	PreferBusyPoll bool
	Tracking       NAPITracking
}

// RegisterNAPI enables NAPI busy polling (IORING_REGISTER_NAPI, Linux 6.9;
// tracking modes 6.13).
func RegisterNAPI(t Target, c NAPIConfig) error {
	us := c.BusyPoll / time.Microsecond
	if us < 0 || us > 1<<32-1 {
		return argErr("RegisterNAPI", "BusyPoll", "= "+c.BusyPoll.String()+" is not in [0, 2^32 µs)")
	}
	n := sys.NAPI{BusyPollTo: uint32(us), Opcode: sys.NAPIRegisterOp, OpParam: uint32(c.Tracking)}
	if c.PreferBusyPoll {
		n.PreferBusyPoll = 1
	}
	_, err := register(t, sys.RegisterNAPI, &n, 1)
	return err
}

// AddNAPIID adds a NAPI id to poll (static tracking, Linux 6.13).
func AddNAPIID(t Target, id uint32) error {
	n := sys.NAPI{Opcode: sys.NAPIStaticAddID, OpParam: id}
	_, err := register(t, sys.RegisterNAPI, &n, 1)
	return err
}

// DelNAPIID removes a NAPI id added with AddNAPIID.
func DelNAPIID(t Target, id uint32) error {
	n := sys.NAPI{Opcode: sys.NAPIStaticDelID, OpParam: id}
	_, err := register(t, sys.RegisterNAPI, &n, 1)
	return err
}

// UnregisterNAPI disables NAPI busy polling (IORING_UNREGISTER_NAPI) and
// returns the settings that were in force.
func UnregisterNAPI(t Target) (NAPIConfig, error) {
	var n sys.NAPI
	if _, err := register(t, sys.UnregisterNAPI, &n, 1); err != nil {
		return NAPIConfig{}, err
	}
	return NAPIConfig{BusyPoll: time.Duration(n.BusyPollTo) * time.Microsecond, PreferBusyPoll: n.PreferBusyPoll != 0}, nil
}
