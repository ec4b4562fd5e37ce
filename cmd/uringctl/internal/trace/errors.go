package trace

import "errors"

// ErrUnavailable is wrapped by every error that means tracing cannot run on
// this machine or with these privileges (as opposed to a failure while it runs).
var ErrUnavailable = errors.New("tracing unavailable")

// Options select what a Tracer counts.
type Options struct {
	PID int // count only this process (tgid); 0 counts every process
}
