//go:build linux

package reg_test

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// recvSelect builds a recv of length 0 into a buffer of group (for a
// BufRing without a pool: Linux 5.19+, where length 0 means the whole
// buffer).
func recvSelect(fd int, group uint16) func(s *sys.SQE) error {
	return func(s *sys.SQE) error {
		if err := sqe.Recv(s, fd, nil, 0); err != nil {
			return err
		}
		sqe.SetBufferSelect(s, group)
		return nil
	}
}

// selector is a pool that marks an SQE as selecting from it.
type selector interface{ Select(s *sys.SQE) }

// recvPool builds a recv into a buffer of pool (pool.Select: on kernels
// before 5.19 the length becomes the buffer size).
func recvPool(fd int, pool selector) func(s *sys.SQE) error {
	return func(s *sys.SQE) error {
		if err := sqe.Recv(s, fd, nil, 0); err != nil {
			return err
		}
		pool.Select(s)
		return nil
	}
}

func forEachMapping(t *testing.T, f func(t *testing.T, user bool)) {
	for _, user := range []bool{false, true} {
		t.Run(map[bool]string{false: "kernel-mapped", true: "user-mapped"}[user], func(t *testing.T) {
			if user {
				testutil.Require(t, uring.CheckCapability(uring.CapBufRing))
			} else {
				testutil.Require(t, uring.CheckCapability(uring.CapBufRingMmap))
			}
			f(t, user)
		})
	}
}

// mechanisms are the pool mechanisms, each with the probe of what it
// needs: every kernel runs the ones it has, so the fallbacks run on new
// kernels too.
var mechanisms = []struct {
	m    reg.PoolMechanism
	name string
	need func() error
}{
	{reg.PoolKernelRing, "kernel-ring", func() error { return uring.CheckCapability(uring.CapBufRingMmap) }},
	{reg.PoolUserRing, "user-ring", func() error { return uring.CheckCapability(uring.CapBufRing) }},
	{reg.PoolProvideBuffers, "provide-buffers", func() error { return uring.CheckOp(sys.OpProvideBuffers) }},
}

func forEachMechanism(t *testing.T, f func(t *testing.T, m reg.PoolMechanism)) {
	for _, m := range mechanisms {
		t.Run(m.name, func(t *testing.T) {
			testutil.Require(t, m.need())
			f(t, m.m)
		})
	}
}

// ringHead returns the kernel's head of ring, or ok = false on a kernel
// without IORING_REGISTER_PBUF_STATUS (6.8), checked to be one.
func ringHead(t *testing.T, ring *reg.BufRing) (head uint16, ok bool) {
	t.Helper()
	head, err := ring.Head()
	if err != nil && !has(t, err) {
		return 0, false
	}
	require.NoError(t, err)
	return head, true
}

// wantMechanism is the mechanism NewBufPool must pick by the probes'
// answers: a kernel-mapped ring, else a user-mapped one, else
// PROVIDE_BUFFERS.
func wantMechanism(t *testing.T, userMemory bool) reg.PoolMechanism {
	t.Helper()
	switch {
	case !has(t, uring.CheckCapability(uring.CapBufRing)):
		return reg.PoolProvideBuffers
	case userMemory || !has(t, uring.CheckCapability(uring.CapBufRingMmap)):
		return reg.PoolUserRing
	}
	return reg.PoolKernelRing
}

// NewBufPool picks the best mechanism the kernel has, and the release
// says which: PROVIDE_BUFFERS before 5.19, a user-mapped ring to 6.3, a
// kernel-mapped one from 6.4. Incremental without IOU_PBUF_RING_INC is an
// error naming it, never a fallback.
func TestBufPoolMechanism(t *testing.T) {
	r := newRing(t, 8)
	want := wantMechanism(t, false)
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 1, Count: 4, Size: 64})
	require.NoError(t, err)
	require.Equal(t, want, pool.Mechanism(), "%v", pool.Mechanism())
	for _, c := range []struct {
		release string
		m       reg.PoolMechanism
	}{{"6.4", reg.PoolKernelRing}, {"5.19", reg.PoolUserRing}, {"0", reg.PoolProvideBuffers}} {
		if ok, err := uring.KernelAtLeast(c.release); err == nil && ok {
			require.Equal(t, c.m, pool.Mechanism(), "on %s (at least %s)", uring.KernelRelease(), c.release)
			break
		}
	}
	require.Equal(t, want == reg.PoolProvideBuffers, pool.Ring() == nil)
	require.NoError(t, pool.Close())

	user, err := reg.NewBufPool(r, reg.PoolConfig{Group: 2, Count: 4, Size: 64, UserMemory: true})
	require.NoError(t, err)
	require.Equal(t, wantMechanism(t, true), user.Mechanism())
	require.NoError(t, user.Close())

	inc, err := reg.NewBufPool(r, reg.PoolConfig{Group: 3, Count: 4, Size: 64, Incremental: true})
	if has(t, uring.CheckCapability(uring.CapBufRingInc)) {
		require.NoError(t, err)
		require.True(t, inc.Ring().Incremental())
		require.NoError(t, inc.Close())
	} else {
		require.Nil(t, inc)
		require.ErrorIs(t, err, uring.ErrUnsupported)
		var ue *uring.UnsupportedError
		require.ErrorAs(t, err, &ue)
		require.Contains(t, ue.Feature, "IOU_PBUF_RING_INC")
		require.Equal(t, "6.12", ue.MinimumVersion)
	}

	// A mechanism the kernel lacks, asked for by name: its error.
	if !has(t, uring.CheckCapability(uring.CapBufRingMmap)) {
		_, err := reg.NewBufPool(r, reg.PoolConfig{Group: 4, Count: 4, Size: 64, Mechanism: reg.PoolKernelRing})
		require.ErrorIs(t, err, uring.ErrUnsupported)
	}
	_, err = reg.NewBufPool(r, reg.PoolConfig{Group: 4, Count: 4, Size: 64, Mechanism: reg.PoolKernelRing, UserMemory: true})
	require.ErrorContains(t, err, "UserMemory is set with Mechanism = PoolKernelRing")
	_, err = reg.NewBufPool(r, reg.PoolConfig{Group: 4, Count: 4, Size: 64, Mechanism: reg.PoolProvideBuffers, Incremental: true})
	require.ErrorContains(t, err, "Incremental needs a buffer ring")
	_, err = reg.NewBufPool(reg.FdTarget(r.Fd()), reg.PoolConfig{Group: 4, Count: 4, Size: 64, Mechanism: reg.PoolProvideBuffers})
	require.ErrorContains(t, err, "needs a target with an SQ")
	_, err = reg.NewBufPool(r, reg.PoolConfig{Group: 4, Count: 4, Size: 64, Mechanism: 9})
	require.ErrorContains(t, err, "Mechanism = 9 is not a PoolMechanism")
}

// N+1 receives on N buffers: exactly one ENOBUFS, and that error CQE hands
// out and recycles nothing; every id once, every byte right.
func TestBufPoolENOBUFS(t *testing.T) {
	forEachMechanism(t, func(t *testing.T, m reg.PoolMechanism) {
		const n = 4
		r := newRing(t, 16)
		a, b := socketpair(t, unix.SOCK_DGRAM)
		pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 7, Count: n, Size: 32, Mechanism: m})
		require.NoError(t, err)
		require.Equal(t, m, pool.Mechanism())
		require.Equal(t, 32, pool.Size())
		defer pool.Close()
		for i := 0; i <= n; i++ {
			_, err := unix.Write(b, []byte(fmt.Sprintf("msg %d", i)))
			require.NoError(t, err)
		}
		for i := 0; i <= n; i++ {
			queue(t, r, uint64(i), recvPool(a, pool))
		}
		submit(t, r)
		cqes := waitN(t, r, n+1)
		enobufs, bids, msgs := 0, map[uint16]bool{}, map[string]bool{}
		var tail uint16
		if ring := pool.Ring(); ring != nil {
			tail = ring.Tail()
		}
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
			require.False(t, msgs[string(data)], "%q twice", data)
			msgs[string(data)] = true
		}
		require.Equal(t, 1, enobufs)
		require.Len(t, bids, n)
		require.Equal(t, n, pool.Out())
		if ring := pool.Ring(); ring != nil {
			require.Equal(t, tail, ring.Tail(), "the error CQE recycled nothing")
			if head, ok := ringHead(t, ring); ok {
				require.Equal(t, uint16(n), head, "the kernel consumed n entries")
			}
		}

		// Give one back: the last datagram now gets it.
		require.NoError(t, pool.Put(2))
		require.ErrorContains(t, pool.Put(2), "bid = 2 is not out")
		require.ErrorContains(t, pool.Put(n), "out of range")
		queue(t, r, 99, recvPool(a, pool))
		submit(t, r)
		c := wait(t, r)
		bid, data, err := pool.Take(c.Res, c.Flags)
		require.NoError(t, err)
		require.Equal(t, uint16(2), bid)
		require.False(t, msgs[string(data)], "%q twice", data)
		require.Regexp(t, `^msg \d$`, string(data))
		for i := 0; i < n; i++ {
			require.NoError(t, pool.Put(uint16(i)))
		}
		require.Zero(t, pool.Out())
		noCQE(t, r)
	})
}

func TestBufRingConfigErrors(t *testing.T) {
	testutil.Require(t, uring.CheckCapability(uring.CapBufRing))
	user := !has(t, uring.CheckCapability(uring.CapBufRingMmap)) // 5.19 to 6.3: rings in our memory only
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

	ring, err := reg.RegisterBufRing(r, reg.BufRingConfig{Group: 1, Entries: 32768, UserMemory: user})
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
	// Status of a group that has no ring (IORING_REGISTER_PBUF_STATUS, 6.8).
	ring2, err := reg.RegisterBufRing(r, reg.BufRingConfig{Group: 3, Entries: 2, UserMemory: user})
	require.NoError(t, err)
	require.NoError(t, ring2.Unregister())
	_, err = ring2.Head()
	if has(t, uring.CheckRegisterOp(sys.RegisterPbufStatus)) {
		require.ErrorIs(t, err, unix.ENOENT)
		require.ErrorContains(t, err, "no buffer ring with this group id")
	} else {
		require.ErrorIs(t, err, uring.ErrUnsupported)
	}
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
		if head, ok := ringHead(t, ring); ok {
			require.Equal(t, uint16(0), head)
		}

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
		if head, ok := ringHead(t, ring); ok {
			require.Equal(t, uint16(2), head)
		}
		require.NoError(t, ring.Recycle(mem[0:100], 40))
		require.Equal(t, uint16(3), ring.Tail())
	})
}

// Incremental consumption: the kernel takes pieces of one buffer, with
// IORING_CQE_F_BUF_MORE while the buffer stays in the ring.
func TestBufPoolIncremental(t *testing.T) {
	forEachMapping(t, func(t *testing.T, user bool) {
		testutil.Require(t, uring.CheckCapability(uring.CapBufRingInc))
		r := newRing(t, 8)
		a, b := socketpair(t, unix.SOCK_STREAM)
		pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 9, Count: 1, Size: 16, UserMemory: user, Incremental: true})
		require.NoError(t, err)
		defer pool.Close()
		require.True(t, pool.Ring().Incremental())
		recv := func(msg string) (uint16, []byte, sys.CQEFlags) {
			_, err := unix.Write(b, []byte(msg))
			require.NoError(t, err)
			queue(t, r, 1, recvPool(a, pool))
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

// Before 5.19 the kernel caps a buffer-select request's length at the
// buffer's, so length 0 reads 0 bytes (and uses up the buffer); later
// kernels read 0 as the whole buffer. Select writes the buffer size where
// the kernel needs it.
func TestSelectLengthZero(t *testing.T) {
	r := newRing(t, 8)
	a, b := socketpair(t, unix.SOCK_DGRAM)
	pool, err := reg.NewLegacyPool(reg.PoolConfig{Group: 12, Count: 2, Size: 32})
	require.NoError(t, err)
	queue(t, r, 1, pool.ProvideAll)
	submit(t, r)
	require.Equal(t, int32(0), wait(t, r).Res)
	write(t, b, []byte("first"))
	write(t, b, []byte("second"))

	// The raw SQE, length 0.
	queue(t, r, 2, recvSelect(a, 12))
	submit(t, r)
	c := wait(t, r)
	_, data, err := pool.Take(c.Res, c.Flags)
	require.NoError(t, err)
	old := !has(t, uring.CheckCapability(uring.CapBufRing)) // the same release, 5.19
	if old {
		require.Empty(t, data, "before 5.19 a length of 0 reads nothing")
	} else {
		require.Equal(t, "first", string(data))
	}

	// Through Select: the datagram, on every kernel.
	var s *sys.SQE
	queue(t, r, 3, func(q *sys.SQE) error { s = q; return recvPool(a, pool)(q) })
	require.Equal(t, uint32(map[bool]int{true: 32, false: 0}[old]), s.Len)
	submit(t, r)
	c = wait(t, r)
	_, data, err = pool.Take(c.Res, c.Flags)
	require.NoError(t, err)
	require.Equal(t, "second", string(data), "a datagram read with length 0 is gone")
	require.NoError(t, pool.Close()) // both buffers are out: the kernel holds none
	require.NoError(t, pool.Put(0, nil))
	require.NoError(t, pool.Put(1, nil))
	require.True(t, pool.Unmapped())
}

func TestLegacyPool(t *testing.T) {
	r := newRing(t, 8)
	a, b := socketpair(t, unix.SOCK_DGRAM)
	pool, err := reg.NewLegacyPool(reg.PoolConfig{Group: 11, Count: 2, Size: 32})
	require.NoError(t, err)
	require.Equal(t, 32, pool.Size())
	queue(t, r, 1, pool.ProvideAll)
	submit(t, r)
	require.Equal(t, int32(0), wait(t, r).Res)
	for _, m := range []string{"one", "two", "three"} {
		_, err := unix.Write(b, []byte(m))
		require.NoError(t, err)
	}
	for i := 0; i < 3; i++ {
		queue(t, r, uint64(10+i), recvPool(a, pool))
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
	queue(t, r, 21, recvPool(a, pool))
	sqe.SetLink(s)
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

// No buffer id is ever handed out twice, and every byte lands where the
// CQE says: reads of a file select buffers while the test holds a random
// subset and gives random ones back.
func TestBufPoolStressNoDoubleHandout(t *testing.T) {
	forEachMechanism(t, func(t *testing.T, m reg.PoolMechanism) {
		ops := 1_000_000
		if testing.Short() || m == reg.PoolProvideBuffers { // a syscall per Put
			ops = 50_000
		}
		const n, batch, size = 128, 64, 8
		r := newRing(t, batch, uring.WithCQSize(batch*4))
		// A file of 8-byte records "%07d\n": read i returns record i.
		f := tempFile(t)
		const records = 1 << 12
		var content []byte
		for i := 0; i < records; i++ {
			content = append(content, fmt.Sprintf("%07d\n", i)...)
		}
		_, err := f.WriteAt(content, 0)
		require.NoError(t, err)
		pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 3, Count: n, Size: size, Mechanism: m})
		require.NoError(t, err)
		defer pool.Close()
		rng := rand.New(rand.NewSource(1))
		held := make([]uint16, 0, n)
		isHeld := make([]bool, n)
		cqes := make([]sys.CQE, batch*2)
		done, enobufs := 0, 0
		for done < ops {
			for i := 0; i < batch; i++ {
				s, err := r.GetSQE()
				require.NoError(t, err)
				rec := (done + i) % records
				require.NoError(t, sqe.ReadSelect(s, int(f.Fd()), 0, int64(rec*size), 3))
				pool.Select(s)
				s.UserData = uint64(rec)
			}
			_, err := r.Submit()
			require.NoError(t, err)
			got := 0
			for got < batch {
				k := r.Reap(cqes)
				if k == 0 {
					_, err := r.WaitCQE()
					require.NoError(t, err)
					continue
				}
				for _, c := range cqes[:k] {
					if c.UserData == reg.InternalUserData {
						// 0, or on older kernels (5.10's) the number provided.
						require.Contains(t, []int32{0, 1}, c.Res, "PROVIDE_BUFFERS")
						continue
					}
					got++
					bid, data, err := pool.Take(c.Res, c.Flags)
					if c.Res == -int32(unix.ENOBUFS) {
						require.ErrorIs(t, err, reg.ErrNoBuffer)
						enobufs++
						continue
					}
					require.NoError(t, err)
					require.Equal(t, fmt.Sprintf("%07d\n", c.UserData), string(data))
					require.False(t, isHeld[bid], "bid %d handed out twice", bid)
					isHeld[bid] = true
					held = append(held, bid)
				}
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
		t.Logf("%v: %d reads, %d ENOBUFS, %d held at the end", m, done, enobufs, len(held))
		require.Greater(t, done-enobufs, ops/2)
	})
}

// Closing a pool with a buffer out keeps the memory until that buffer is
// put back, and takes the rest back from the kernel at once.
func TestBufPoolCloseWithBufferOut(t *testing.T) {
	forEachMechanism(t, func(t *testing.T, m reg.PoolMechanism) {
		r := newRing(t, 4)
		a, b := socketpair(t, unix.SOCK_DGRAM)
		pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 5, Count: 2, Size: 16, Mechanism: m})
		require.NoError(t, err)
		_, err = unix.Write(b, []byte("kept"))
		require.NoError(t, err)
		queue(t, r, 1, recvPool(a, pool))
		submit(t, r)
		c := wait(t, r)
		bid, data, err := pool.Take(c.Res, c.Flags)
		require.NoError(t, err)
		require.True(t, pool.IsOut(bid))
		require.NoError(t, pool.Close())
		require.False(t, pool.Unmapped())
		require.Equal(t, "kept", string(data), "still mapped")
		// The group is gone from the kernel.
		queue(t, r, 2, recvPool(a, pool))
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
		noCQE(t, r)
	})
}

// Take and Put are on the reaping hot path: no allocations (a
// PROVIDE_BUFFERS Put makes a syscall, but allocates nothing either).
func TestBufPoolNoAllocs(t *testing.T) {
	forEachMechanism(t, func(t *testing.T, m reg.PoolMechanism) {
		r := newRing(t, 2)
		pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 6, Count: 4, Size: 16, Mechanism: m})
		require.NoError(t, err)
		defer pool.Close()
		// A synthetic CQE for buffer 3 (the kernel never sees this pool used).
		flags := sys.CQEFBuffer | 3<<sys.CQEBufferShift
		var errs error
		require.Equal(t, 0.0, testing.AllocsPerRun(1000, func() {
			_, _, err := pool.Take(8, flags)
			errs = errors.Join(errs, err, pool.Put(3))
			if m == reg.PoolProvideBuffers {
				c, _ := r.PeekCQE()
				if c != nil {
					r.CQESeen(c)
				}
			}
		}))
		require.NoError(t, errs)
		require.Zero(t, pool.Out())
	})
}

// A PROVIDE_BUFFERS pool takes its SQEs from the ring: a full SQ is
// submitted to make room (what the owner queued goes first), and a closed
// ring is an error that leaves the id out.
func TestBufPoolProvideSQ(t *testing.T) {
	r := newRing(t, 4)
	a, b := socketpair(t, unix.SOCK_DGRAM)
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: 8, Count: 2, Size: 16, Mechanism: reg.PoolProvideBuffers})
	require.NoError(t, err)
	require.Nil(t, pool.Ring())
	write(t, b, []byte("a"))
	queue(t, r, 1, recvPool(a, pool))
	submit(t, r)
	c := wait(t, r)
	bid, _, err := pool.Take(c.Res, c.Flags)
	require.NoError(t, err)

	// Fill the SQ with NOPs: Put submits them, then its own SQE.
	for i := 0; ; i++ {
		s, err := r.GetSQE()
		if errors.Is(err, uring.ErrSQFull) {
			require.Equal(t, 4, i)
			break
		}
		require.NoError(t, err)
		sqe.Nop(s)
		s.UserData = 100 + uint64(i)
	}
	require.NoError(t, pool.Put(bid))
	require.Zero(t, r.SQReady(), "the NOPs and the PROVIDE_BUFFERS went in")
	nops := waitN(t, r, 4)
	for i := uint64(100); i < 104; i++ {
		require.Equal(t, int32(0), nops[i].Res)
	}
	write(t, b, []byte("b"))
	write(t, b, []byte("c"))
	queue(t, r, 2, recvPool(a, pool))
	queue(t, r, 3, recvPool(a, pool))
	submit(t, r)
	cqes := waitN(t, r, 2)
	ids := map[uint16]bool{}
	for _, c := range cqes {
		bid, _, err := pool.Take(c.Res, c.Flags)
		require.NoError(t, err)
		ids[bid] = true
	}
	require.Len(t, ids, 2, "both buffers, the put one among them")

	// The ring closed under the pool: Put fails and the id stays out;
	// Close needs no SQE (the kernel dropped the group with the ring).
	require.NoError(t, r.Close())
	err = pool.Put(0)
	var pe *reg.PoolError
	require.ErrorAs(t, err, &pe)
	require.ErrorIs(t, err, uring.ErrClosed)
	require.False(t, pe.Queued)
	require.True(t, pool.IsOut(0))
	require.NoError(t, pool.Close())
	require.NoError(t, pool.Put(0))
	require.NoError(t, pool.Put(1))
	require.True(t, pool.Unmapped())
}
