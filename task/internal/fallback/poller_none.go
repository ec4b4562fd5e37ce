//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package fallback

// newPoller: no fd readiness here (Windows and the rest). The fallback
// parks on its wake channel and timers; I/O goes through package goio's
// adapters (Listen, Dial, ListenPacket, OpenFile) on Go's own os and net.
func newPoller() (poller, error) { return nil, nil }
