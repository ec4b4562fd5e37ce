//go:build linux

package task

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// TestStaleTokensDropped: CQEs forged with the user_data of ops that
// completed earlier are dropped while a read waits on a slot (it completes
// only with its own data). The generation wrap of the slots themselves is
// the Core's (poll's TestGenerationWrap).
func TestStaleTokensDropped(t *testing.T) {
	requireRing(t)
	testutil.FailIfKernelHas(t, "5.18", feature.Op(sys.OpMsgRing))
	ex := newExec(t)
	pr, pw := pipe(t)
	var uds []uint64
	var got string
	_, err := Run(context.Background(), ex, func(tk *T) (struct{}, error) {
		for i := range 5 {
			res, _, err := tk.Await(func(s *sys.SQE) { sqe.Nop(s) })
			if err != nil || res != 0 {
				return struct{}{}, errf("op %d: %d %v", i, res, err)
			}
		}
		h := Spawn(tk, func(tk *T) (string, error) {
			b := make([]byte, 8)
			n, err := tk.Read(pr, b, CurrentPos)
			return string(b[:n]), err
		})
		tk.Yield()
		free, inUse := ringOf(tk.ex).Tokens()
		uds = append(uds, free...)
		for _, ud := range inUse {
			ud ^= 1 << 41                   // an older generation of the slot (odd, as in flight)
			uds = append(uds, ud, ud^1<<34) // and with a batch index (poll.PrepBatch)
		}
		fd := tk.ex.Ring().Fd()
		for _, ud := range uds {
			if _, _, err := tk.Await(func(s *sys.SQE) { _ = sqe.MsgRing(s, fd, 0, ud) }); err != nil {
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
	require.NotEmpty(t, uds)
}
