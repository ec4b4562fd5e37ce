package uring_test

import (
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

func TestSmokeNop(t *testing.T) {
	r, err := uring.New(8)
	require.NoError(t, err)
	defer r.Close()
	s, err := r.GetSQE()
	require.NoError(t, err)
	s.Opcode = sys.OpNop
	s.UserData = 42
	n, err := r.SubmitAndWait(1)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	c, err := r.WaitCQE()
	require.NoError(t, err)
	require.Equal(t, uint64(42), c.UserData)
	require.Equal(t, int32(0), c.Res)
	r.CQESeen(c)
}
