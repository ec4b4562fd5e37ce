//go:build linux

package task

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task/internal/ring"
)

// Recv and Send with data (room) there complete directly, with the same
// bytes and results as the ring path; with none, Recv waits on the ring.
func TestDirectRecvSend(t *testing.T) {
	ex := newExec(t)
	a, b := socketPair(t)
	require.NoError(t, runTask(t, ex, func(t *T) error {
		for i := range 40 { // past ring.DirectBudget: both paths
			msg := []byte(sprintf("msg %02d", i))
			n, err := t.Send(a, msg, 0)
			if err != nil || n != len(msg) {
				return sprintErr("send", n, err)
			}
			buf := make([]byte, 16)
			n, err = t.Recv(b, buf, 0)
			if err != nil || !bytes.Equal(buf[:n], msg) {
				return sprintErr("recv "+string(buf[:n]), n, err)
			}
		}
		return nil
	}))
	// Nothing there: EAGAIN, then the ring RECV completes when data comes.
	go func() { _, _ = unix.Write(a, []byte("late")) }()
	got := make([]byte, 8)
	require.NoError(t, runTask(t, ex, func(t *T) error {
		n, err := t.Recv(b, got, 0)
		got = got[:n]
		return err
	}))
	require.Equal(t, "late", string(got))
	// Errors are the ring path's: *OpError wrapping the errno.
	require.NoError(t, unix.Shutdown(a, unix.SHUT_RD)) // sending to it: EPIPE
	err := runTask(t, ex, func(t *T) error {
		_, err := t.Send(b, []byte("x"), 0)
		return err
	})
	var oe *OpError
	require.ErrorAs(t, err, &oe)
	require.ErrorIs(t, err, unix.EPIPE)
}

// A task whose socket always has data still parks every ring.DirectBudget
// calls, so the other tasks of its executor run.
func TestDirectBudgetLetsOthersRun(t *testing.T) {
	requireRing(t)
	ex := newExec(t)
	a, b := socketPair(t)
	_, err := unix.Write(a, make([]byte, 1000))
	require.NoError(t, err)
	seenAt := -1
	require.NoError(t, runTask(t, ex, func(t *T) error {
		ran := false
		h := Spawn(t, func(t *T) (struct{}, error) { ran = true; return struct{}{}, nil })
		buf := make([]byte, 1)
		for i := range 1000 {
			if _, err := t.Recv(b, buf, 0); err != nil {
				return err
			}
			if ran && seenAt < 0 {
				seenAt = i
			}
		}
		_, err := h.Join(t)
		return err
	}))
	require.GreaterOrEqual(t, seenAt, 0)
	require.LessOrEqual(t, seenAt, ring.DirectBudget+1)
}

func sprintErr(what string, n int, err error) error {
	if err != nil {
		return err
	}
	return opError(what, n, unix.EIO)
}
