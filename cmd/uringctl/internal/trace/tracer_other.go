//go:build !linux

package trace

import "fmt"

// Tracer is not available outside Linux.
type Tracer struct{}

// Start fails with ErrUnavailable outside Linux.
func Start(Options) (*Tracer, error) {
	return nil, fmt.Errorf("trace: io_uring tracepoints need Linux: %w", ErrUnavailable)
}

// Snapshot is never reached outside Linux.
func (t *Tracer) Snapshot() (*Report, error) { return nil, ErrUnavailable }

// Close is a no-op outside Linux.
func (t *Tracer) Close() error { return nil }

// Notes is empty outside Linux.
func (t *Tracer) Notes() []string { return nil }
