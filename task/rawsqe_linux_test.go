package task

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// TestAwaitSendZCWaitsForNotification: a raw SEND_ZC posts its result
// (F_MORE) and then the notification; Await, and a Link's SQEOp, return
// only after the notification (the buffer is the caller's again then),
// with the send's byte count.
func TestAwaitSendZCWaitsForNotification(t *testing.T) {
	requireRing(t)
	testutil.Require(t, uring.CheckOp(sys.OpSendZC))
	ex := newExec(t)
	a, b := testutil.TCPPair(t) // zero-copy sends need TCP or UDP
	const n = 4096
	buf := bytes.Repeat([]byte{'A'}, n)
	var (
		res              int32
		cflags           uint32
		busy, busyLinked int
		links            []Result
	)
	require.NoError(t, runTask(t, ex, func(tk *T) error {
		r, f, err := tk.Await(func(s *sys.SQE) { _ = sqe.SendZC(s, a, buf, 0, 0) })
		if err != nil {
			return err
		}
		res, cflags, busy = r, f, tk.ex.busy()
		for i := range buf { // Await returned: buf is the caller's again
			buf[i] = 'X'
		}
		for i := range buf {
			buf[i] = 'B'
		}
		links, err = tk.Link(SQEOp(func(s *sys.SQE) { _ = sqe.SendZC(s, a, buf, 0, 0) }))
		busyLinked = tk.ex.busy()
		for i := range buf {
			buf[i] = 'X'
		}
		return err
	}))
	require.Equal(t, int32(n), res)
	require.Zero(t, cflags&uint32(sys.CQEFMore), "Await returned at the CQE with F_MORE: flags %#x", cflags)
	require.Zero(t, busy, "an op is in flight after Await returned")
	require.Len(t, links, 1)
	require.Equal(t, int32(n), links[0].Res)
	require.Zero(t, links[0].Flags&uint32(sys.CQEFMore), "Link returned at the CQE with F_MORE: flags %#x", links[0].Flags)
	require.Zero(t, busyLinked, "an op is in flight after Link returned")
	got := make([]byte, 2*n)
	for m := 0; m < len(got); {
		k, err := unix.Read(b, got[m:])
		require.NoError(t, err)
		require.NotZero(t, k)
		m += k
	}
	require.Equal(t, bytes.Repeat([]byte{'A'}, n), got[:n])
	require.Equal(t, bytes.Repeat([]byte{'B'}, n), got[n:])
}

// ghostPrep fills sqe with a read of fd into buf, then panics.
func ghostPrep(fd int, buf []byte) func(*sys.SQE) {
	return func(s *sys.SQE) {
		_ = sqe.Read(s, fd, buf, -1)
		panic("prep failed after filling the SQE")
	}
}

// recoverPrep runs fn and returns what it panicked with.
func recoverPrep(fn func()) (v any) {
	defer func() { v = recover() }()
	fn()
	return nil
}

// checkNoGhost: after a prep panicked, nothing of its op was submitted (a
// later submission does not read the pipe behind the task's back), no op
// is left in flight, and the executor closes clean.
func checkNoGhost(t *testing.T, op func(tk *T, r int, ghost []byte)) {
	requireRing(t)
	ex, err := NewExecutor(backendOpts()...)
	require.NoError(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = ex.Close()
		}
	})
	r, w := pipe(t)
	const msg = "hello-ghost"
	_, err = unix.Write(w, []byte(msg))
	require.NoError(t, err)
	ghost := make([]byte, 64)
	var (
		panicked any
		busy     int
	)
	require.NoError(t, runTask(t, ex, func(tk *T) error {
		panicked = recoverPrep(func() { op(tk, r, ghost) })
		// A submission: a half-filled SQE left in the SQ would go with it
		// (and a read of a pipe with data completes at once).
		if _, _, err := tk.Await(func(s *sys.SQE) { sqe.Nop(s) }); err != nil {
			return err
		}
		busy = tk.ex.busy()
		return nil
	}))
	require.Equal(t, "prep failed after filling the SQE", panicked)
	require.NoError(t, unix.SetNonblock(r, true))
	got := make([]byte, 64)
	k, err := unix.Read(r, got)
	require.NoError(t, err, "the pipe was read behind the task's back (ghost %q)", ghost[:len(msg)])
	require.Equal(t, msg, string(got[:k]))
	require.Zero(t, busy, "an op of the panicked prep is in flight")
	closed = true
	require.NoError(t, ex.Close())
}

// TestAwaitPrepPanic: a raw prep that panics after filling the SQE
// leaves nothing submitted and no slot taken; the panic goes on.
func TestAwaitPrepPanic(t *testing.T) {
	checkNoGhost(t, func(tk *T, r int, ghost []byte) {
		_, _, _ = tk.Await(ghostPrep(r, ghost))
	})
}

// TestLinkPrepPanic: an SQEOp that panics in the middle of a Link leaves
// nothing of the chain submitted (the read before it does not run either)
// and no slot taken; the panic goes on.
func TestLinkPrepPanic(t *testing.T) {
	checkNoGhost(t, func(tk *T, r int, ghost []byte) {
		first := make([]byte, 64)
		_, _ = tk.Link(ReadOp(r, first, -1), SQEOp(ghostPrep(r, ghost)), NopOp())
	})
}
