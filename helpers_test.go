//go:build linux

package uring_test

import (
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

// nop queues a NOP tagged ud.
func nop(t testing.TB, r *uring.Ring, ud uint64) {
	t.Helper()
	s, err := r.GetSQE()
	require.NoError(t, err)
	s.Opcode = sys.OpNop
	s.UserData = ud
}

// reapAll reaps until want CQEs arrived, returning them.
func reapAll(t testing.TB, r *uring.Ring, want int) []sys.CQE {
	t.Helper()
	out := make([]sys.CQE, 0, want)
	buf := make([]sys.CQE, 64)
	for len(out) < want {
		n := r.Reap(buf)
		if n == 0 {
			_, err := r.WaitCQE()
			require.NoError(t, err)
			continue
		}
		out = append(out, buf[:n]...)
	}
	return out
}
