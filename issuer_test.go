//go:build linux

package uring_test

import (
	"github.com/pure-uring/uring/tests/ringtest"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
)

// onOtherThread runs fn on a locked thread other than the caller's.
func onOtherThread(fn func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread() // a new thread: the caller's stays locked to it
		defer runtime.UnlockOSThread()
		defer close(done)
		fn()
	}()
	<-done
}

// The submitter of a SINGLE_ISSUER ring is the thread that made it; the
// kernel refuses io_uring_enter and io_uring_register (here: Resize, 6.13)
// from any other thread, and the ring says so with ErrNotIssuer.
func TestIssuerThreadIsTheCreator(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := ringtest.New(t, 4, uring.WithSingleIssuer()) // 6.0
	require.True(t, r.OnIssuerThread())
	var onOther bool
	var err error
	onOtherThread(func() {
		onOther = r.OnIssuerThread()
		nop(t, r, 1)
		_, err = r.Submit()
	})
	require.False(t, onOther)
	require.ErrorIs(t, err, uring.ErrNotIssuer)
	require.ErrorIs(t, err, syscall.EEXIST)
	_, err = r.SubmitAndWait(1)
	require.NoError(t, err, "the creator may submit (the NOP waiting since)")

	plain := ringtest.New(t, 4)
	onOtherThread(func() { onOther = plain.OnIssuerThread() })
	require.True(t, onOther, "any thread may use a ring without SINGLE_ISSUER")

	t.Run("register", func(t *testing.T) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		testutil.Require(t, uring.CheckRegisterOp(sys.RegisterResizeRings)) // 6.13
		r := ringtest.New(t, 4, uring.WithSingleIssuer(), uring.WithDeferTaskrun())
		onOtherThread(func() { err = r.Resize(8, 0) })
		require.ErrorIs(t, err, uring.ErrNotIssuer)
		require.ErrorIs(t, err, syscall.EEXIST)
		require.NoError(t, r.Resize(8, 0), "the creator may resize")
		require.Equal(t, uint32(8), r.SQEntries())
	})
}

// A SINGLE_ISSUER ring made disabled has no submitter until it is enabled:
// the thread that enables it becomes the submitter, not the creator.
func TestIssuerThreadIsTheEnabler(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := ringtest.New(t, 4, uring.WithSingleIssuer(), uring.WithDisabled())
	var before, after bool
	var err error
	onOtherThread(func() {
		before = r.OnIssuerThread()
		err = r.Enable()
		after = r.OnIssuerThread()
	})
	require.NoError(t, err)
	require.True(t, before, "no submitter before Enable")
	require.True(t, after)
	require.False(t, r.OnIssuerThread(), "the enabler is the submitter, not the creator")
	nop(t, r, 1)
	_, err = r.Submit()
	require.ErrorIs(t, err, uring.ErrNotIssuer)
}
