//go:build linux

package uring_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/tests/ringtest"
)

// SubmitAndWait submits first without waiting: NOPs complete inside that
// submit, and it returns with their CQEs. A request that does not complete
// inline (a timeout) is waited for as before, and the next 16 calls, then
// 32 after a second miss in a row, wait the plain way; a hit ends the
// backoff. Every call returns with the CQEs it asked for.
func TestSubmitAndWaitInlineFirst(t *testing.T) {
	r := ringtest.New(t, 8)
	nops := func(k int) {
		t.Helper()
		for i := 0; i < k; i++ {
			nop(t, r, uint64(100+i))
		}
		n, err := r.SubmitAndWait(uint32(k))
		require.NoError(t, err)
		require.Equal(t, k, n)
		require.Equal(t, uint32(k), r.CQReady(), "the CQEs are there when it returns")
		for _, c := range reapAll(t, r, k) {
			require.Zero(t, c.Res)
		}
	}
	var ts sys.Timespec
	timeout := func() {
		t.Helper()
		s, err := r.GetSQE()
		require.NoError(t, err)
		require.NoError(t, sqe.Timeout(s, &ts, 5*time.Millisecond, 0, 0))
		s.UserData = 7
		n, err := r.SubmitAndWait(1)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, uint32(1), r.CQReady(), "it waited for the timeout's CQE")
		c := reapAll(t, r, 1)[0]
		require.Equal(t, uint64(7), c.UserData)
		require.Equal(t, -int32(syscall.ETIME), c.Res)
	}

	// reg.StartIOWorkers (ringtest.New) waited for IOSQE_ASYNC requests,
	// which never complete inline: that was a miss.
	for i := 0; uring.InlineSkip(r) > 0; i++ {
		require.Less(t, i, 1024, "the backoff ends")
		nops(1)
	}
	nops(1)
	nops(4)
	require.Zero(t, uring.InlineSkip(r), "hits: no backoff")

	timeout()
	require.Equal(t, uint32(16), uring.InlineSkip(r), "a miss: 16 plain waits")
	for i := 16; i > 0; i-- {
		require.Equal(t, uint32(i), uring.InlineSkip(r))
		nops(1)
	}
	require.Zero(t, uring.InlineSkip(r))
	timeout()
	require.Equal(t, uint32(32), uring.InlineSkip(r), "a second miss in a row: 32")
	for i := 0; i < 32; i++ {
		nops(1)
	}
	nops(2) // a hit
	timeout()
	require.Equal(t, uint32(16), uring.InlineSkip(r), "a hit ended the backoff")
}
