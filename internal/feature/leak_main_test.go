//go:build linux

package feature_test

import (
	"testing"

	// The probes that submit requests run on package uring's Ring, which
	// installs its constructor here (feature.SetRingMaker) at init.
	_ "github.com/pure-uring/uring"

	"github.com/pure-uring/uring/internal/testutil"
)

// TestMain fails the package when its tests leak fds, goroutines or
// io_uring mappings.
func TestMain(m *testing.M) { testutil.Main(m) }
