//go:build linux

package uring_test

import (
	"errors"
	"github.com/pure-uring/uring/tests/ringtest"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// requireArgError: err is the library's one argument error (the same
// type as sqe.ArgError), naming method fn's argument arg, and EINVAL.
func requireArgError(t *testing.T, err error, fn, arg string) {
	t.Helper()
	var ae *uring.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, fn, ae.Func)
	require.Equal(t, arg, ae.Arg)
	require.Equal(t, "uring", ae.Pkg)
	require.ErrorIs(t, err, syscall.EINVAL)
	var se *sqe.ArgError
	require.True(t, errors.As(err, &se), "uring.ArgError is sqe.ArgError")
}

// TestRingArgErrors: a Ring method's bad argument is an *ArgError naming
// it, before anything reaches the kernel; a timed submit refuses its
// timeout before it submits, so the prepared SQE is still there.
func TestRingArgErrors(t *testing.T) {
	r := ringtest.New(t, 8)
	requireArgError(t, r.PostCQE(1, 0, ^sys.MsgRingFlagsPass, 0), "PostCQE", "msgFlags")
	requireArgError(t, r.Resize(0, 0), "Resize", "sqEntries")
	requireArgError(t, r.Resize(uring.MaxEntries+1, 0), "Resize", "sqEntries")
	requireArgError(t, r.Resize(16, 8), "Resize", "cqEntries")
	_, err := r.WaitCQETimeout(-time.Second)
	requireArgError(t, err, "WaitCQETimeout", "d")
	_, err = r.WaitCQEsTimeout(1, time.Second, -time.Millisecond)
	requireArgError(t, err, "WaitCQEsTimeout", "minWait")

	nop(t, r, 7)
	n, err := r.SubmitAndWaitTimeout(1, -time.Second)
	requireArgError(t, err, "SubmitAndWaitTimeout", "d")
	require.Zero(t, n)
	n, err = r.SubmitAndWait(1)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the NOP prepared before the refused call is submitted now")
	c, err := r.WaitCQE()
	require.NoError(t, err)
	require.Equal(t, uint64(7), c.UserData)
	r.CQESeen(c)
}
