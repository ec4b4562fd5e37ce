//go:build linux

package reg_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// requireBundles skips when the kernel lacks bundle receives (and fails
// when it should have them).
func requireBundles(t *testing.T, r *uring.Ring) {
	t.Helper()
	testutil.Require(t, uring.CheckCapability(uring.CapRecvSendBundle))
	require.NotZero(t, r.Features()&sys.FeatRecvSendBundle)
}

// tcpPair returns a connected TCP loopback pair, closed at the end of the
// test.
func tcpPair(t *testing.T) (int, int) { return testutil.TCPPair(t) }

func forEachStream(t *testing.T, f func(t *testing.T, rd, wr int)) {
	t.Run("unix", func(t *testing.T) { a, b := socketpair(t, unix.SOCK_STREAM); f(t, a, b) })
	t.Run("tcp", func(t *testing.T) { a, b := tcpPair(t); f(t, a, b) })
}

// recvBundle runs one bundle receive (not multishot) on fd from group and
// returns its CQE.
func recvBundle(t *testing.T, r *uring.Ring, fd int, group uint16) sys.CQE {
	t.Helper()
	queue(t, r, 1, func(s *sys.SQE) error { return sqe.RecvBundle(s, fd, 0, group, false) })
	submit(t, r)
	return wait(t, r)
}

// write sends msg on fd in one call.
func write(t *testing.T, fd int, msg []byte) {
	t.Helper()
	n, err := unix.Write(fd, msg)
	require.NoError(t, err)
	require.Equal(t, len(msg), n)
}

// pattern returns n bytes that differ from one 64-byte chunk to the next,
// so that bytes out of order show.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i/64)*31 + byte(i%64)
	}
	return b
}

// drainBundles receives n bytes with bundle receives, one at a time, and
// checks each CQE: TakeBundle returns ceil(res/size) buffers, full ones
// and then the remainder, each id newly out, and the kernel's head moved
// by exactly that many entries (so the pool's walk covers what the kernel
// consumed). It returns the bytes, the ids in the order they were filled,
// and how many buffers each CQE spanned.
func drainBundles(t *testing.T, r *uring.Ring, pool *reg.BufPool, fd, n, size int) (data []byte, ids []uint16, spans []int) {
	t.Helper()
	var bufs []reg.PoolBuf
	for len(data) < n {
		require.Less(t, len(spans), n, "more CQEs than bytes")
		head, err := pool.Ring().Head()
		require.NoError(t, err)
		out := pool.Out()
		c := recvBundle(t, r, fd, pool.Group())
		require.Positive(t, c.Res, "res %d", c.Res)
		bufs, err = pool.TakeBundle(c.Res, c.Flags, bufs[:0])
		require.NoError(t, err)
		k := (int(c.Res) + size - 1) / size
		require.Len(t, bufs, k)
		for i, b := range bufs {
			want := size
			if i == k-1 {
				want = int(c.Res) - (k-1)*size
			}
			require.Len(t, b.Data, want, "buffer %d (id %d) of %d", i, b.ID, k)
			require.True(t, pool.IsOut(b.ID))
			data = append(data, b.Data...)
			ids = append(ids, b.ID)
		}
		require.Equal(t, out+k, pool.Out())
		after, err := pool.Ring().Head()
		require.NoError(t, err)
		require.Equal(t, uint16(k), after-head, "the kernel consumed %d ring entries for res %d", after-head, c.Res)
		spans = append(spans, k)
	}
	require.Len(t, data, n)
	return data, ids, spans
}

// A bundle receive decodes into the buffers the kernel filled, in ring
// order; after puts in another order, ring order is not id order, and the
// bytes show the walk followed the ring.
func TestBufPoolTakeBundle(t *testing.T) {
	forEachStream(t, func(t *testing.T, rd, wr int) {
		const count, size = 8, 64
		r := newRing(t, 8)
		requireBundles(t, r)
		pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 1, Count: count, Size: size})
		require.NoError(t, err)
		defer pool.Close()

		// 3 full buffers and 10 bytes. Linux 6.18 delivers the 192 full
		// bytes in one CQE and the 10 in the next: a bundle ends with a
		// partial buffer only when that buffer is all of its last round.
		// 6.12 fills one buffer per CQE here (the kernel learns how much
		// is queued only from a receive); either way drainBundles checks
		// each CQE against the buffers the kernel consumed.
		msg := pattern(3*size+10, 1)
		write(t, wr, msg)
		got, ids, spans := drainBundles(t, r, pool, rd, len(msg), size)
		require.Equal(t, msg, got)
		require.Equal(t, []uint16{0, 1, 2, 3}, ids, "ring order is id order before any put")
		t.Logf("buffers per CQE: %v", spans)
		require.Equal(t, 4, pool.Out())

		// Put back out of order: ring entries 8..11 (positions 0..3) now
		// hold ids 2, 0, 3, 1 after the untouched 4..7.
		for _, id := range []uint16{2, 0, 3, 1} {
			require.NoError(t, pool.Put(id))
		}
		require.Zero(t, pool.Out())
		msg = pattern(count*size, 7)
		write(t, wr, msg)
		got, ids, spans = drainBundles(t, r, pool, rd, len(msg), size)
		require.Equal(t, msg, got, "bytes in ring order")
		require.Equal(t, []uint16{4, 5, 6, 7, 2, 0, 3, 1}, ids)
		t.Logf("buffers per CQE: %v", spans)
		require.Equal(t, count, pool.Out())
		for _, id := range ids {
			require.NoError(t, pool.Put(id))
		}
		require.Zero(t, pool.Out())
	})
}

// res ≤ size is one buffer; a bundle that fills one buffer and part of the
// next ends with the remainder; end of stream hands out nothing.
func TestBufPoolTakeBundleShapes(t *testing.T) {
	const size = 64
	r := newRing(t, 8)
	requireBundles(t, r)
	rd, wr := socketpair(t, unix.SOCK_STREAM)
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 2, Count: 4, Size: size})
	require.NoError(t, err)
	defer pool.Close()
	dst := make([]reg.PoolBuf, 0, 4)

	for _, n := range []int{10, size} {
		msg := pattern(n, byte(n))
		write(t, wr, msg)
		c := recvBundle(t, r, rd, 2)
		require.Equal(t, int32(n), c.Res)
		bufs, err := pool.TakeBundle(c.Res, c.Flags, dst[:0])
		require.NoError(t, err)
		require.Len(t, bufs, 1)
		require.Equal(t, msg, bufs[0].Data)
		require.Equal(t, 1, pool.Out())
		require.NoError(t, pool.Put(bufs[0].ID))
	}

	// 100 bytes: a full buffer then 36 bytes, in one CQE (Linux 6.18) or
	// one CQE each (6.12).
	msg := pattern(size+36, 3)
	write(t, wr, msg)
	got, ids, spans := drainBundles(t, r, pool, rd, len(msg), size)
	require.Equal(t, msg, got)
	require.Contains(t, [][]int{{2}, {1, 1}}, spans)
	for _, id := range ids {
		require.NoError(t, pool.Put(id))
	}

	// End of stream: res 0 without IORING_CQE_F_BUFFER, the kernel keeps
	// the buffer in the ring.
	require.NoError(t, unix.Shutdown(wr, unix.SHUT_WR))
	head, err := pool.Ring().Head()
	require.NoError(t, err)
	c := recvBundle(t, r, rd, 2)
	require.Zero(t, c.Res)
	require.Zero(t, c.Flags&sys.CQEFBuffer)
	bufs, err := pool.TakeBundle(c.Res, c.Flags, dst[:0])
	require.ErrorIs(t, err, reg.ErrNoBuffer)
	require.Empty(t, bufs)
	after, err := pool.Ring().Head()
	require.NoError(t, err)
	require.Equal(t, head, after)
	require.Zero(t, pool.Out())

	// A synthetic res 0 with a buffer is one empty buffer, as in Take.
	bufs, err = pool.TakeBundle(0, sys.CQEFBuffer|2<<sys.CQEBufferShift, dst[:0])
	require.NoError(t, err)
	require.Len(t, bufs, 1)
	require.Equal(t, uint16(2), bufs[0].ID)
	require.Empty(t, bufs[0].Data)
	require.NoError(t, pool.Put(2))
}

// requireBundleErr checks that err is the *ArgError of TakeBundle naming
// arg, with reason containing what, and that dst came back as it was.
func requireBundleErr(t *testing.T, err error, got, dst []reg.PoolBuf, arg, what string) {
	t.Helper()
	var ae *reg.ArgError
	require.True(t, errors.As(err, &ae), "err = %v", err)
	require.Equal(t, "BufPool.TakeBundle", ae.Func)
	require.Equal(t, arg, ae.Arg)
	require.Contains(t, ae.Reason, what)
	require.ErrorIs(t, err, unix.EINVAL)
	require.Equal(t, dst, got)
}

// Synthetic CQEs (the kernel never selects from these pools): every error
// names the argument and marks nothing out.
func TestBufPoolTakeBundleErrors(t *testing.T) {
	const size = 16
	r := newRing(t, 4)
	flags := func(bid uint16) sys.CQEFlags { return sys.CQEFBuffer | sys.CQEFlags(bid)<<sys.CQEBufferShift }
	dst := []reg.PoolBuf{{ID: 99}} // an element the caller had: it stays

	testutil.Require(t, uring.CheckCapability(uring.CapBufRing))
	// 6 buffers in a ring of 8 entries.
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 1, Count: 6, Size: size, Mechanism: reg.PoolUserRing})
	require.NoError(t, err)
	got, err := pool.TakeBundle(size, 0, dst)
	require.ErrorIs(t, err, reg.ErrNoBuffer)
	require.Equal(t, dst, got)
	got, err = pool.TakeBundle(size, flags(6), dst)
	requireBundleErr(t, err, got, dst, "buffer id", "= 6 from the CQE is out of range [0, 6)")
	got, err = pool.TakeBundle(7*size, flags(0), dst)
	requireBundleErr(t, err, got, dst, "res", "spans 7 buffers of 16 bytes; the ring holds 6")
	got, err = pool.TakeBundle(2*size, flags(5), dst)
	requireBundleErr(t, err, got, dst, "res", "runs past the ring's tail at ring entry 6 (1 after buffer 5)")

	bid, _, err := pool.Take(5, flags(1))
	require.NoError(t, err)
	require.Equal(t, uint16(1), bid)
	got, err = pool.TakeBundle(size, flags(1), dst)
	requireBundleErr(t, err, got, dst, "buffer id", "= 1 from the CQE is already out")
	got, err = pool.TakeBundle(size+1, flags(0), dst)
	requireBundleErr(t, err, got, dst, "res", "reaches buffer 1 at ring entry 1 (1 after buffer 0), which is out")
	got, err = pool.TakeBundle(6*size, flags(0), dst)
	requireBundleErr(t, err, got, dst, "res", "spans 6 buffers of 16 bytes; the ring holds 5")
	require.Equal(t, 1, pool.Out())
	require.False(t, pool.IsOut(0))

	// Buffer 1 put back lands at entry 6: a bundle from 0 claiming the
	// entry 1 it left is refused.
	require.NoError(t, pool.Put(1))
	got, err = pool.TakeBundle(2*size, flags(0), dst)
	requireBundleErr(t, err, got, dst, "res", "reaches ring entry 1 (1 after buffer 0), which the pool has reused since the kernel took it (a Put before this bundle was decoded)")
	require.Zero(t, pool.Out())
	require.NoError(t, pool.Close())

	// Two bundles taken out of order: 2-3 taken and put back rewrite
	// entries 0-1 (4 buffers, 4 entries) before the bundle 0-1 is taken.
	pool, err = reg.NewBufPool(r, reg.PoolConfig{Group: 2, Count: 4, Size: size, Mechanism: reg.PoolUserRing})
	require.NoError(t, err)
	bufs, err := pool.TakeBundle(2*size, flags(2), nil)
	require.NoError(t, err)
	require.Len(t, bufs, 2)
	require.NoError(t, pool.Put(2))
	require.NoError(t, pool.Put(3))
	got, err = pool.TakeBundle(2*size, flags(0), dst)
	requireBundleErr(t, err, got, dst, "res", "reaches ring entry 1 (1 after buffer 0), which the pool has reused since the kernel took it")
	require.Zero(t, pool.Out())
	require.NoError(t, pool.Close())
	got, err = pool.TakeBundle(size, flags(0), dst)
	requireBundleErr(t, err, got, dst, "pool", "is closed and its buffers are unmapped")

	// Incremental pools are refused, even for a single buffer.
	if !has(t, uring.CheckCapability(uring.CapBufRingInc)) {
		return
	}
	inc, err := reg.NewBufPool(r, reg.PoolConfig{Group: 3, Count: 2, Size: size, Incremental: true})
	require.NoError(t, err)
	defer inc.Close()
	got, err = inc.TakeBundle(size, flags(0), dst)
	requireBundleErr(t, err, got, dst, "pool", "is incremental (IOU_PBUF_RING_INC): bundles and incremental consumption together are not supported")
	require.Zero(t, inc.Out())
}

// TakeBundle with a reused dst and Put are on the reaping hot path: no
// allocations.
func TestBufPoolTakeBundleNoAllocs(t *testing.T) {
	testutil.Require(t, uring.CheckCapability(uring.CapBufRing))
	r := newRing(t, 2)
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 6, Count: 4, Size: 16, Mechanism: reg.PoolUserRing})
	require.NoError(t, err)
	defer pool.Close()
	// A synthetic CQE for 40 bytes from buffer 0: ids 0, 1, 2. Putting
	// them back in order writes them in the same positions again.
	flags := sys.CQEFBuffer | 0<<sys.CQEBufferShift
	dst := make([]reg.PoolBuf, 0, 4)
	var n int
	var errs error
	require.Equal(t, 0.0, testing.AllocsPerRun(1000, func() {
		bufs, err := pool.TakeBundle(40, flags, dst[:0])
		n = len(bufs)
		errs = errors.Join(errs, err)
		for _, b := range bufs {
			errs = errors.Join(errs, pool.Put(b.ID))
		}
	}))
	require.NoError(t, errs)
	require.Equal(t, 3, n)
	require.Zero(t, pool.Out())
}

// A PROVIDE_BUFFERS pool cannot decode bundles: before 6.10 (no bundles)
// TakeBundle is the UnsupportedError, later an *ArgError (the kernel may
// append the next buffer of its list, which the CQE does not name); either
// way nothing changes.
func TestBufPoolTakeBundleProvided(t *testing.T) {
	r := newRing(t, 4)
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 4, Count: 4, Size: 16, Mechanism: reg.PoolProvideBuffers})
	require.NoError(t, err)
	defer pool.Close()
	dst := []reg.PoolBuf{{ID: 99}}
	got, err := pool.TakeBundle(5, sys.CQEFBuffer, dst)
	require.Equal(t, dst, got)
	require.Zero(t, pool.Out())
	if !has(t, uring.CheckCapability(uring.CapRecvSendBundle)) {
		require.ErrorIs(t, err, uring.ErrUnsupported)
		var ue *uring.UnsupportedError
		require.ErrorAs(t, err, &ue)
		require.Equal(t, "6.10", ue.MinimumVersion)
		return
	}
	requireBundleErr(t, err, got, dst, "pool", "uses PROVIDE_BUFFERS")
}
