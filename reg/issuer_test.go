//go:build linux

package reg_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sys"
)

// A register call on a SINGLE_ISSUER ring from a thread other than its
// submitter gets the kernel's EEXIST; reg tells it from an opcode's own
// EEXIST (here a group id registered twice) and says what to do.
func TestRegisterOffIssuerThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := newRing(t, 4, uring.WithSingleIssuer(), uring.WithDeferTaskrun())

	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // a new thread, not the ring's submitter
		defer runtime.UnlockOSThread()
		_, err := reg.Probe(r)
		errc <- err
	}()
	err := <-errc
	var re *reg.Error
	require.ErrorAs(t, err, &re)
	require.True(t, re.NotIssuer)
	require.Equal(t, sys.RegisterProbe, re.Op)
	require.ErrorIs(t, err, uring.ErrNotIssuer)
	require.ErrorIs(t, err, unix.EEXIST)
	require.Contains(t, err.Error(), "this thread is not its submitter")

	_, err = reg.Probe(r)
	require.NoError(t, err, "the submitter may register")

	testutil.Require(t, uring.CheckCapability(uring.CapBufRing))
	user := !has(t, uring.CheckCapability(uring.CapBufRingMmap))
	br, err := reg.RegisterBufRing(r, reg.BufRingConfig{Group: 3, Entries: 8, UserMemory: user})
	require.NoError(t, err)
	defer func() { require.NoError(t, br.Unregister()) }()
	_, err = reg.RegisterBufRing(r, reg.BufRingConfig{Group: 3, Entries: 8, UserMemory: user})
	require.ErrorAs(t, err, &re)
	require.False(t, re.NotIssuer, "%v", err)
	require.NotErrorIs(t, err, uring.ErrNotIssuer)
	require.ErrorIs(t, err, unix.EEXIST)
	require.Contains(t, err.Error(), "the group id is already registered")
}
