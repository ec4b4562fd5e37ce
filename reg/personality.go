//go:build linux

package reg

import "github.com/pure-uring/uring/sys"

// Personality is the id of a registered set of credentials; put it in an
// SQE's Personality field to run that request with them. Nothing in this
// library uses one unless asked.
type Personality uint16

// RegisterPersonality registers the calling thread's current credentials
// (IORING_REGISTER_PERSONALITY, Linux 5.6) and returns their id.
func RegisterPersonality(t Target) (Personality, error) {
	id, err := registerNil(t, sys.RegisterPersonality, 0)
	if err != nil {
		return 0, err
	}
	return Personality(id), nil
}

// UnregisterPersonality drops a registered personality
// (IORING_UNREGISTER_PERSONALITY).
func UnregisterPersonality(t Target, id Personality) error {
	_, err := registerNil(t, sys.UnregisterPersonality, uint32(id))
	return err
}
