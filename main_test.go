//go:build linux

package uring_test

import (
	"testing"

	"github.com/pure-uring/uring/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }
