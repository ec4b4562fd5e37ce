//go:build !linux

package testutil

import "testing"

// MainDenied is Main off Linux: there is no io_uring to deny, and the
// task layer runs its fallback backend anyway.
func MainDenied(m *testing.M) { Main(m) }

// MainDeniedSetup is MainDenied with setup run first.
func MainDeniedSetup(m *testing.M, setup func()) {
	if setup != nil {
		setup()
	}
	Main(m)
}
