//go:build linux

package task

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// TestSlotGenerationWrap runs awaits through op slots whose generation
// wraps past 2^32: results stay right, and CQEs forged with user_data from
// before the wrap are dropped while a read waits on the same slot (it
// completes only with its own data).
func TestSlotGenerationWrap(t *testing.T) {
	ex := newExec(t)
	pr, pw := pipe(t)
	var uds []uint64
	var got string
	_, err := Run(ex, context.Background(), func(tk *T) (struct{}, error) {
		if err := tk.Nop(); err != nil { // the first slot exists now
			return struct{}{}, err
		}
		for _, sl := range tk.ex.slots {
			sl.gen = ^uint32(0) - 2
		}
		for i := range 5 {
			uds = append(uds, tk.ex.slots[tk.ex.free[len(tk.ex.free)-1]].ud())
			res, _, err := tk.Await(func(s *sys.SQE) { sqe.NopResult(s, int32(i)+7) })
			if err != nil || res != int32(i)+7 {
				return struct{}{}, errf("op %d: %d %v", i, res, err)
			}
		}
		// A read waits on the slot; CQEs with every old user_data arrive
		// first (ring-less MSG_RING posts them to this ring).
		h := Spawn(tk, func(tk *T) (string, error) {
			b := make([]byte, 8)
			n, err := tk.Read(pr, b, CurrentPos)
			return string(b[:n]), err
		})
		tk.Yield() // the reader starts and parks on its read
		for _, ud := range uds {
			if _, _, err := tk.Await(func(s *sys.SQE) { _ = sqe.MsgRing(s, tk.ex.ringFd, 0, ud) }); err != nil {
				return struct{}{}, err
			}
		}
		if h.Done() {
			return struct{}{}, errf("a forged CQE completed the read")
		}
		if _, err := unix.Write(pw, []byte("own")); err != nil {
			return struct{}{}, err
		}
		var err error
		got, err = h.Join(tk)
		return struct{}{}, err
	})
	require.NoError(t, err)
	require.Equal(t, "own", got)
	require.Equal(t, ^uint32(0)-2, uint32(uds[0]>>32))
	require.Equal(t, uint32(0), uint32(uds[3]>>32), "the generation wrapped")
	require.Equal(t, uint32(1), uint32(uds[4]>>32))
}
