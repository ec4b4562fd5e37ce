//go:build linux

package reg_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// recvSelect builds a recv into a buffer of group.
func recvSelect(fd int, group uint16) func(s *sys.SQE) error {
	return func(s *sys.SQE) error {
		if err := sqe.Recv(s, fd, nil, 0); err != nil {
			return err
		}
		sqe.BufferSelect(s, group)
		return nil
	}
}

func forEachMapping(t *testing.T, f func(t *testing.T, user bool)) {
	for _, user := range []bool{false, true} {
		t.Run(map[bool]string{false: "kernel-mapped", true: "user-mapped"}[user], func(t *testing.T) { f(t, user) })
	}
}

// N+1 receives on N buffers: exactly one ENOBUFS, and that error CQE hands
// out and recycles nothing.
func TestBufPoolENOBUFS(t *testing.T) {
	forEachMapping(t, func(t *testing.T, user bool) {
		const n = 4
		r := newRing(t, 16)
		a, b := socketpair(t, unix.SOCK_DGRAM)
		pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 7, Count: n, Size: 32, UserMemory: user})
		require.NoError(t, err)
		defer pool.Close()
		for i := 0; i <= n; i++ {
			_, err := unix.Write(b, []byte(fmt.Sprintf("msg %d", i)))
			require.NoError(t, err)
		}
		for i := 0; i <= n; i++ {
			queue(t, r, uint64(i), recvSelect(a, 7))
		}
		submit(t, r)
		cqes := waitN(t, r, n+1)
		enobufs, bids := 0, map[uint16]bool{}
		tail := pool.Ring().Tail()
		for ud, c := range cqes {
			bid, data, err := pool.Take(c.Res, c.Flags)
			if c.Res < 0 {
				require.Equal(t, unix.ENOBUFS, errno(t, c.Res))
				require.ErrorIs(t, err, reg.ErrNoBuffer)
				require.Nil(t, data)
				enobufs++
				continue
			}
			require.NoError(t, err, "user_data %d", ud)
			require.False(t, bids[bid], "bid %d twice", bid)
			bids[bid] = true
			require.Regexp(t, `^msg \d$`, string(data))
		}
		require.Equal(t, 1, enobufs)
		require.Len(t, bids, n)
		require.Equal(t, n, pool.Out())
		require.Equal(t, tail, pool.Ring().Tail(), "the error CQE recycled nothing")
		head, err := pool.Ring().Head()
		require.NoError(t, err)
		require.Equal(t, uint16(n), head, "the kernel consumed n entries")

		// Give one back: the last datagram now gets it.
		require.NoError(t, pool.Put(2))
		require.ErrorContains(t, pool.Put(2), "bid = 2 is not out")
		require.ErrorContains(t, pool.Put(n), "out of range")
		queue(t, r, 99, recvSelect(a, 7))
		submit(t, r)
		c := wait(t, r)
		bid, data, err := pool.Take(c.Res, c.Flags)
		require.NoError(t, err)
		require.Equal(t, uint16(2), bid)
		require.Equal(t, "msg 4", string(data))
		for i := 0; i < n; i++ {
			require.NoError(t, pool.Put(uint16(i)))
		}
		require.Zero(t, pool.Out())
	})
}

func TestBufRingConfigErrors(t *testing.T) {
	r := newRing(t, 4)
	for _, c := range []struct {
		entries int
		msg     string
	}{
		{100, "Entries = 100 is not a power of two"},
		{65536, "Entries = 65536 is not in [1, 32768]"},
		{0, "Entries = 0 is not in [1, 32768]"},
		{3, "not a power of two"},
	} {
		_, err := reg.RegisterBufRing(r, reg.BufRingConfig{Group: 1, Entries: c.entries})
		require.ErrorIs(t, err, unix.EINVAL)
		require.ErrorContains(t, err, c.msg)
	}
	// The kernel agrees about a non-power of two.
	br := sys.BufReg{RingEntries: 100, Bgid: 1, Flags: sys.PbufRingMmap}
	_, err := sys.Register(r.Fd(), sys.RegisterPbufRing, &br, 1)
	require.ErrorIs(t, err, unix.EINVAL)

	ring, err := reg.RegisterBufRing(r, reg.BufRingConfig{Group: 1, Entries: 32768})
	require.NoError(t, err)
	_, err = reg.RegisterBufRing(r, reg.BufRingConfig{Group: 1, Entries: 8, UserMemory: true})
	require.ErrorIs(t, err, unix.EEXIST)
	require.ErrorContains(t, err, "REGISTER_PBUF_RING")
	require.ErrorContains(t, err, "group id is already registered")
	_, err = reg.NewBufPool(r, reg.PoolConfig{Group: 1, Count: 8, Size: 8})
	require.ErrorIs(t, err, unix.EEXIST)
	require.NoError(t, ring.Unregister())
	require.ErrorContains(t, ring.Unregister(), "already unregistered")
	require.ErrorContains(t, ring.Add(nil, 0, 0), "unregistered")

	_, err = reg.NewBufPool(r, reg.PoolConfig{Group: 2, Count: 32769, Size: 8})
	require.ErrorContains(t, err, "Count = 32769 is not in [1, 32768]")
	_, err = reg.NewBufPool(r, reg.PoolConfig{Group: 2, Count: 8, Size: 0})
	require.ErrorContains(t, err, "Size = 0")
	// Status of a group that has no ring.
	ring2, err := reg.RegisterBufRing(r, reg.BufRingConfig{Group: 3, Entries: 2})
	require.NoError(t, err)
	require.NoError(t, ring2.Unregister())
	_, err = ring2.Head()
	require.ErrorIs(t, err, unix.ENOENT)
	require.ErrorContains(t, err, "no buffer ring with this group id")
}

// A BufRing without the pool: add, advance, status, and the kernel picks
// the entries in order.
func TestBufRingAddAdvanceHead(t *testing.T) {
	forEachMapping(t, func(t *testing.T, user bool) {
		r := newRing(t, 8)
		a, b := socketpair(t, unix.SOCK_DGRAM)
		ring, err := reg.RegisterBufRing(r, reg.BufRingConfig{Group: 4, Entries: 4, UserMemory: user})
		require.NoError(t, err)
		defer ring.Unregister()
		require.Equal(t, 4, ring.Entries())
		require.Equal(t, uint16(4), ring.Group())
		bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 1, Size: 4096}) // off-heap memory to carry
		require.NoError(t, err)
		defer bufs.Unregister()
		mem := bufs.Buf(0)
		require.NoError(t, ring.Add(mem[0:100], 40, 0))
		require.NoError(t, ring.Add(mem[100:200], 41, 1))
		require.ErrorContains(t, ring.Add(mem, 42, 4), "i = 4 is not in [0, 4)")
		head, err := ring.Head()
		require.NoError(t, err)
		require.Equal(t, uint16(0), head)

		// Not advanced yet: the kernel sees no buffer.
		_, err = unix.Write(b, []byte("x"))
		require.NoError(t, err)
		queue(t, r, 1, recvSelect(a, 4))
		submit(t, r)
		require.Equal(t, unix.ENOBUFS, errno(t, wait(t, r).Res))

		ring.Advance(2)
		require.Equal(t, uint16(2), ring.Tail())
		_, err = unix.Write(b, []byte("y"))
		require.NoError(t, err)
		queue(t, r, 2, recvSelect(a, 4))
		queue(t, r, 3, recvSelect(a, 4))
		submit(t, r)
		cqes := waitN(t, r, 2)
		require.Equal(t, sys.CQEFBuffer|40<<sys.CQEBufferShift, cqes[2].Flags&^sys.CQEFSockNonempty)
		require.Equal(t, "x", string(mem[0:1]))
		require.Equal(t, sys.CQEFBuffer|41<<sys.CQEBufferShift, cqes[3].Flags&^sys.CQEFSockNonempty)
		require.Equal(t, "y", string(mem[100:101]))
		head, err = ring.Head()
		require.NoError(t, err)
		require.Equal(t, uint16(2), head)
		require.NoError(t, ring.Recycle(mem[0:100], 40))
		require.Equal(t, uint16(3), ring.Tail())
	})
}

// Incremental consumption: the kernel takes pieces of one buffer, with
// IORING_CQE_F_BUF_MORE while the buffer stays in the ring.
func TestBufPoolIncremental(t *testing.T) {
	forEachMapping(t, func(t *testing.T, user bool) {
		r := newRing(t, 8)
		a, b := socketpair(t, unix.SOCK_STREAM)
		pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 9, Count: 1, Size: 16, UserMemory: user, Incremental: true})
		require.NoError(t, err)
		defer pool.Close()
		require.True(t, pool.Ring().Incremental())
		recv := func(msg string) (uint16, []byte, sys.CQEFlags) {
			_, err := unix.Write(b, []byte(msg))
			require.NoError(t, err)
			queue(t, r, 1, recvSelect(a, 9))
			submit(t, r)
			c := wait(t, r)
			require.Equal(t, int32(len(msg)), c.Res)
			bid, data, err := pool.Take(c.Res, c.Flags)
			require.NoError(t, err)
			return bid, data, c.Flags
		}
		bid, d1, fl := recv("hello")
		require.Equal(t, uint16(0), bid)
		require.NotZero(t, fl&sys.CQEFBufMore)
		require.Equal(t, "hello", string(d1))
		require.Zero(t, pool.Out(), "the kernel still owns the rest")
		_, d2, fl := recv("world!")
		require.NotZero(t, fl&sys.CQEFBufMore)
		require.Equal(t, "world!", string(d2))
		require.Equal(t, "hello", string(d1), "earlier piece intact")
		_, d3, fl := recv("12345") // fills the 16 bytes exactly
		require.Zero(t, fl&sys.CQEFBufMore)
		require.Equal(t, "12345", string(d3))
		require.Equal(t, 1, pool.Out())
		require.NoError(t, pool.Put(0))
		_, d4, fl := recv("again")
		require.NotZero(t, fl&sys.CQEFBufMore)
		require.Equal(t, "again", string(d4), "a recycled buffer starts over")
	})
}

func TestLegacyPool(t *testing.T) {
	r := newRing(t, 8)
	a, b := socketpair(t, unix.SOCK_DGRAM)
	pool, err := reg.NewLegacyPool(reg.PoolConfig{Group: 11, Count: 2, Size: 32})
	require.NoError(t, err)
	queue(t, r, 1, pool.ProvideAll)
	submit(t, r)
	require.Equal(t, int32(0), wait(t, r).Res)
	for _, m := range []string{"one", "two", "three"} {
		_, err := unix.Write(b, []byte(m))
		require.NoError(t, err)
	}
	for i := 0; i < 3; i++ {
		queue(t, r, uint64(10+i), recvSelect(a, 11))
	}
	submit(t, r)
	cqes := waitN(t, r, 3)
	got := map[string]bool{}
	for ud := uint64(10); ud < 12; ud++ {
		_, data, err := pool.Take(cqes[ud].Res, cqes[ud].Flags)
		require.NoError(t, err)
		got[string(data)] = true
	}
	require.Equal(t, map[string]bool{"one": true, "two": true}, got)
	require.Equal(t, unix.ENOBUFS, errno(t, cqes[12].Res))
	_, _, err = pool.Take(cqes[12].Res, cqes[12].Flags)
	require.ErrorIs(t, err, reg.ErrNoBuffer)
	require.Equal(t, 2, pool.Out())

	// Give buffer 1 back through an SQE, then the third message fits.
	s, err := r.GetSQE()
	require.NoError(t, err)
	require.ErrorContains(t, pool.Put(5, s), "out of range")
	require.NoError(t, pool.Put(1, s))
	s.UserData = 20
	queue(t, r, 21, recvSelect(a, 11))
	sqe.Link(s)
	submit(t, r)
	cqes = waitN(t, r, 2)
	require.Equal(t, int32(0), cqes[20].Res)
	bid, data, err := pool.Take(cqes[21].Res, cqes[21].Flags)
	require.NoError(t, err)
	require.Equal(t, uint16(1), bid)
	require.Equal(t, "three", string(data))

	// Give buffer 0 back, then remove what the kernel holds: just it.
	queue(t, r, 30, func(s *sys.SQE) error { return pool.Put(0, s) })
	submit(t, r)
	require.Equal(t, int32(0), wait(t, r).Res)
	queue(t, r, 31, pool.RemoveAll)
	submit(t, r)
	require.Equal(t, int32(1), wait(t, r).Res, "one buffer removed")
	require.NoError(t, pool.Close())
	require.Error(t, pool.Close())
}

// No buffer id is ever handed out twice: reads of /dev/zero select buffers
// while the test holds a random subset and gives random ones back.
func TestBufPoolStressNoDoubleHandout(t *testing.T) {
	ops := 1_000_000
	if testing.Short() {
		ops = 50_000
	}
	const n, batch = 128, 64
	r := newRing(t, batch, uring.WithCQSize(batch*2))
	zero, err := unix.Open("/dev/zero", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(zero)
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 3, Count: n, Size: 8})
	require.NoError(t, err)
	defer pool.Close()
	rng := rand.New(rand.NewSource(1))
	held := make([]uint16, 0, n)
	isHeld := make([]bool, n)
	cqes := make([]sys.CQE, batch)
	done, enobufs := 0, 0
	for done < ops {
		for i := 0; i < batch; i++ {
			s, err := r.GetSQE()
			require.NoError(t, err)
			require.NoError(t, sqe.ReadSelect(s, zero, 0, 0, 3))
		}
		_, err := r.SubmitAndWait(batch)
		require.NoError(t, err)
		got := 0
		for got < batch {
			k := r.Reap(cqes[:batch-got])
			if k == 0 {
				_, err := r.WaitCQE()
				require.NoError(t, err)
				continue
			}
			for _, c := range cqes[:k] {
				bid, data, err := pool.Take(c.Res, c.Flags)
				if c.Res == -int32(unix.ENOBUFS) {
					require.ErrorIs(t, err, reg.ErrNoBuffer)
					enobufs++
					continue
				}
				require.NoError(t, err)
				require.Len(t, data, 8)
				require.False(t, isHeld[bid], "bid %d handed out twice", bid)
				isHeld[bid] = true
				held = append(held, bid)
			}
			got += k
		}
		done += batch
		// Give back a random number of random held buffers.
		for k := rng.Intn(len(held) + 1); k > 0; k-- {
			i := rng.Intn(len(held))
			bid := held[i]
			held[i] = held[len(held)-1]
			held = held[:len(held)-1]
			isHeld[bid] = false
			require.NoError(t, pool.Put(bid))
		}
		require.Equal(t, len(held), pool.Out())
	}
	t.Logf("%d reads, %d ENOBUFS, %d held at the end", done, enobufs, len(held))
	require.Greater(t, done-enobufs, ops/2)
}

// Closing a pool with a buffer out keeps the memory until that buffer is
// put back.
func TestBufPoolCloseWithBufferOut(t *testing.T) {
	r := newRing(t, 4)
	a, b := socketpair(t, unix.SOCK_DGRAM)
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 5, Count: 2, Size: 16})
	require.NoError(t, err)
	_, err = unix.Write(b, []byte("kept"))
	require.NoError(t, err)
	queue(t, r, 1, recvSelect(a, 5))
	submit(t, r)
	c := wait(t, r)
	bid, data, err := pool.Take(c.Res, c.Flags)
	require.NoError(t, err)
	require.True(t, pool.IsOut(bid))
	require.NoError(t, pool.Close())
	require.False(t, pool.Unmapped())
	require.Equal(t, "kept", string(data), "still mapped")
	// The group is gone from the kernel.
	queue(t, r, 2, recvSelect(a, 5))
	_, err = unix.Write(b, []byte("x"))
	require.NoError(t, err)
	submit(t, r)
	require.Equal(t, unix.ENOBUFS, errno(t, wait(t, r).Res))
	require.NoError(t, pool.Put(bid))
	require.True(t, pool.Unmapped())
	require.Error(t, pool.Put(bid))
	require.Error(t, pool.Close())
	// A late CQE naming a buffer of the unmapped pool: refused, nothing out.
	_, data, err = pool.Take(4, sys.CQEFBuffer|sys.CQEFlags(bid)<<sys.CQEBufferShift)
	var ae *reg.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "pool", ae.Arg)
	require.Nil(t, data)
	require.Zero(t, pool.Out())
}

// Take and Put are on the reaping hot path: no allocations.
func TestBufPoolNoAllocs(t *testing.T) {
	r := newRing(t, 2)
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 6, Count: 4, Size: 16})
	require.NoError(t, err)
	defer pool.Close()
	// A synthetic CQE for buffer 3 (the kernel never sees this pool used).
	flags := sys.CQEFBuffer | 3<<sys.CQEBufferShift
	require.Equal(t, 0.0, testing.AllocsPerRun(1000, func() {
		_, _, _ = pool.Take(8, flags)
		_ = pool.Put(3)
	}))
	require.Zero(t, pool.Out())
}
