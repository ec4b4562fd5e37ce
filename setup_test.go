//go:build linux

package uring_test

import (
	"errors"
	"github.com/pure-uring/uring/tests/ringtest"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

func TestBadSetupParamsNameTheOption(t *testing.T) {
	cases := []struct {
		entries uint32
		opts    []uring.Option
		names   string
	}{
		{0, nil, "entries"},
		{40000, nil, "entries"},
		{8, []uring.Option{uring.WithCQSize(0)}, "WithCQSize"},
		{8, []uring.Option{uring.WithCQSize(4)}, "WithCQSize"},
		{8, []uring.Option{uring.WithCQSize(1 << 20)}, "WithCQSize"},
		{8, []uring.Option{uring.WithDeferTaskrun()}, "WithDeferTaskrun"},
		{8, []uring.Option{uring.WithSQPollCPU(0)}, "WithSQPollCPU"},
		{8, []uring.Option{uring.WithSQPollCPU(-1)}, "WithSQPollCPU"},
		{8, []uring.Option{uring.WithHybridIOPoll()}, "WithHybridIOPoll"},
		{8, []uring.Option{uring.WithTaskrunFlag()}, "WithTaskrunFlag"},
		{8, []uring.Option{uring.WithSQPoll(time.Millisecond), uring.WithCoopTaskrun()}, "WithSQPoll"},
		{8, []uring.Option{uring.WithRegisteredFdOnly()}, "WithRegisteredFdOnly"},
		{8, []uring.Option{uring.WithCQEMixed(), uring.WithCQE32()}, "WithCQEMixed"},
		{8, []uring.Option{uring.WithAttachWQ(nil)}, "WithAttachWQ"},
		{8, []uring.Option{uring.WithSQPoll(-time.Second)}, "WithSQPoll"},
	}
	before := testutil.Take()
	for _, c := range cases {
		r, err := uring.New(c.entries, c.opts...)
		require.Nil(t, r)
		var oe *uring.OptionError
		require.True(t, errors.As(err, &oe), "%v", err)
		require.Equal(t, c.names, oe.Option)
		require.ErrorIs(t, err, syscall.EINVAL)
		require.Contains(t, err.Error(), c.names)
	}
	require.Empty(t, testutil.Leaked(before), "rejected options leave no fd or mapping")
}

func TestKernelRejectedParamsLeaveNothingBehind(t *testing.T) {
	before := testutil.Take()
	// An unknown flag bit passes our checks via WithFlags; the kernel says EINVAL.
	r, err := uring.New(8, uring.WithFlags(1<<30))
	require.Nil(t, r)
	require.ErrorIs(t, err, syscall.EINVAL)
	// A NO_MMAP ring whose memory was mapped before setup failed.
	r, err = uring.New(8, uring.WithNoMmap(), uring.WithFlags(1<<30))
	require.Nil(t, r)
	require.ErrorIs(t, err, syscall.EINVAL)
	require.Empty(t, testutil.Leaked(before))
}

func TestClampClampsHugeSizes(t *testing.T) {
	r := ringtest.New(t, 1<<20, uring.WithClamp(), uring.WithCQSize(1<<24))
	require.Equal(t, uint32(uring.MaxEntries), r.SQEntries())
	require.Equal(t, uint32(uring.MaxCQEntries), r.CQEntries())
}

func TestSetupFlagsRoundTrip(t *testing.T) {
	runtime.LockOSThread() // SINGLE_ISSUER: submit from the thread that made the ring
	defer runtime.UnlockOSThread()
	r := ringtest.New(t, 4, uring.WithSubmitAll(), uring.WithCoopTaskrun(), uring.WithTaskrunFlag(), uring.WithSingleIssuer())
	want := sys.SetupSubmitAll | sys.SetupCoopTaskrun | sys.SetupTaskrunFlag | sys.SetupSingleIssuer
	require.Equal(t, want, r.SetupFlags())
	require.NotZero(t, r.Features()&sys.FeatNoDrop)
	nop(t, r, 1)
	_, err := r.SubmitAndWait(1)
	require.NoError(t, err)
	require.Equal(t, uint64(1), reapAll(t, r, 1)[0].UserData)
}
