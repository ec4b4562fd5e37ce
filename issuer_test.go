package uring_test

import (
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
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
// kernel refuses io_uring_register (here: Resize) from any other thread,
// and the ring says so with ErrNotIssuer.
func TestIssuerThreadIsTheCreator(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := testutil.NewRing(t, 4, uring.WithSingleIssuer(), uring.WithDeferTaskrun())
	require.True(t, r.OnIssuerThread())
	var onOther bool
	var err error
	onOtherThread(func() {
		onOther = r.OnIssuerThread()
		err = r.Resize(8, 0)
	})
	require.False(t, onOther)
	require.ErrorIs(t, err, uring.ErrNotIssuer)
	require.ErrorIs(t, err, syscall.EEXIST)
	require.NoError(t, r.Resize(8, 0), "the creator may resize")
	require.Equal(t, uint32(8), r.SQEntries())

	plain := testutil.NewRing(t, 4)
	onOtherThread(func() { onOther = plain.OnIssuerThread() })
	require.True(t, onOther, "any thread may use a ring without SINGLE_ISSUER")
}

// A SINGLE_ISSUER ring made disabled has no submitter until it is enabled:
// the thread that enables it becomes the submitter, not the creator.
func TestIssuerThreadIsTheEnabler(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := testutil.NewRing(t, 4, uring.WithSingleIssuer(), uring.WithDisabled())
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
