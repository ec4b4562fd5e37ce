//go:build linux

package tests

import (
	"os"
	"testing"

	"github.com/pure-uring/uring/internal/testutil"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(seccompChildEnv); mode != "" {
		os.Exit(seccompChild(mode))
	}
	testutil.Main(m)
}
