//go:build linux

package uring_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/tests/ringtest"
)

// TestWaitsSubmitWhenTheyEnter pins what the wait calls' comments say about
// SQEs handed out by GetSQE and not yet submitted: a wait that enters the
// kernel submits them in the same io_uring_enter; a wait that finds its
// CQEs ready, or has a zero timeout, does not enter and submits nothing;
// on an SQPOLL ring no wait publishes them (Submit does).
func TestWaitsSubmitWhenTheyEnter(t *testing.T) {
	var mask sys.Sigset
	mask.Add(syscall.SIGURG) // the runtime's preemption signal must not end the wait
	waits := []struct {
		name string
		wait func(r *uring.Ring) (*sys.CQE, error)
	}{
		{"WaitCQE", func(r *uring.Ring) (*sys.CQE, error) { return r.WaitCQE() }},
		{"WaitCQEs", func(r *uring.Ring) (*sys.CQE, error) { return r.WaitCQEs(1) }},
		{"WaitCQETimeout", func(r *uring.Ring) (*sys.CQE, error) { return r.WaitCQETimeout(hangGuard) }},
		{"WaitCQEsTimeout", func(r *uring.Ring) (*sys.CQE, error) { return r.WaitCQEsTimeout(1, hangGuard, 0) }},
		{"WaitCQEsSigmask", func(r *uring.Ring) (*sys.CQE, error) { return r.WaitCQEsSigmask(1, hangGuard, mask) }},
		{"WaitCQEsSigmask/no timeout", func(r *uring.Ring) (*sys.CQE, error) { return r.WaitCQEsSigmask(1, -1, mask) }},
	}
	for _, w := range waits {
		t.Run(w.name, func(t *testing.T) {
			r := ringtest.New(t, 4)
			// Nothing is ready: the wait enters and submits the NOP.
			nop(t, r, 1)
			c, err := w.wait(r)
			require.NoError(t, err)
			require.Equal(t, uint64(1), c.UserData, "the wait submitted the NOP")
			require.Zero(t, r.SQReady())

			// A CQE is ready: the wait returns it without entering, and the
			// NOP queued since stays unsubmitted.
			nop(t, r, 2)
			c, err = w.wait(r)
			require.NoError(t, err)
			require.Equal(t, uint64(1), c.UserData)
			require.Equal(t, uint32(1), r.SQReady(), "the wait submitted with a CQE ready")
			r.CQESeen(c)
			n, err := r.Submit()
			require.NoError(t, err)
			require.Equal(t, 1, n)
			c, err = w.wait(r)
			require.NoError(t, err)
			require.Equal(t, uint64(2), c.UserData)
			r.CQESeen(c)
		})
	}

	t.Run("zero timeout", func(t *testing.T) {
		r := ringtest.New(t, 4)
		nop(t, r, 1)
		_, err := r.WaitCQETimeout(0)
		require.ErrorIs(t, err, uring.ErrTimeout)
		_, err = r.WaitCQEsTimeout(1, 0, 0)
		require.ErrorIs(t, err, uring.ErrTimeout)
		_, err = r.WaitCQEsSigmask(1, 0, mask)
		require.ErrorIs(t, err, uring.ErrTimeout)
		require.Equal(t, uint32(1), r.SQReady(), "a zero-timeout wait submitted")
	})

	t.Run("SQPOLL", func(t *testing.T) {
		r := ringtest.New(t, 4, uring.WithSQPoll(time.Second))
		nop(t, r, 1)
		// The SQ thread would run the NOP at once had the wait published
		// it; unpublished, the wait can only time out.
		_, err := r.WaitCQETimeout(20 * time.Millisecond)
		require.ErrorIs(t, err, uring.ErrTimeout)
		require.Equal(t, uint32(1), r.SQReady(), "the SQ thread consumed an SQE nobody published")
		_, err = r.Submit()
		require.NoError(t, err)
		c, err := r.WaitCQETimeout(hangGuard)
		require.NoError(t, err)
		require.Equal(t, uint64(1), c.UserData)
		r.CQESeen(c)
	})
}
