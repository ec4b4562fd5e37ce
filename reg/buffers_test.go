//go:build linux

package reg_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

func TestBuffersValidateBeforeSubmit(t *testing.T) {
	r := newRing(t, 4)
	bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 3, Size: 1000})
	require.NoError(t, err)
	defer bufs.Unregister()
	require.Equal(t, 3, bufs.Len())
	require.Len(t, bufs.Buf(2), 1000)
	require.GreaterOrEqual(t, len(bufs.Memory()), 3000)
	require.Zero(t, sys.SliceAddr(bufs.Memory())%4096, "page aligned")

	require.NoError(t, bufs.Validate(2, 0, 1000))
	require.NoError(t, bufs.Validate(2, 999, 1))
	require.NoError(t, bufs.Validate(0, 1000, 0))
	for _, c := range []struct{ index, off, n int }{
		{3, 0, 1}, {-1, 0, 1}, {0, 0, 1001}, {0, 999, 2}, {0, -1, 1}, {0, 1001, 0}, {0, 5, -1},
	} {
		err := bufs.Validate(c.index, c.off, c.n)
		require.ErrorIs(t, err, unix.EINVAL, "%+v", c)
		var ae *reg.ArgError
		require.ErrorAs(t, err, &ae)
	}
	require.ErrorContains(t, bufs.Validate(3, 0, 1), "index = 3 is out of range [0, 3)")
	require.ErrorContains(t, bufs.Validate(0, 999, 2), "[999, 999+2) is outside buffer 0 of 1000 bytes")

	// A second table on the same ring: EBUSY, explained.
	_, err = reg.RegisterBuffers(r, reg.BufferConfig{Count: 1, Size: 10})
	require.ErrorIs(t, err, unix.EBUSY)
	require.ErrorContains(t, err, "REGISTER_BUFFERS2")

	for _, c := range []reg.BufferConfig{{Count: 0, Size: 1}, {Count: 16385, Size: 1}, {Count: 1, Size: 0}, {Count: 1, Size: 1<<30 + 1}} {
		_, err := reg.RegisterBuffers(r, c)
		require.ErrorIs(t, err, unix.EINVAL, "%+v", c)
	}
}

func TestBuffersSparseUpdate(t *testing.T) {
	r := newRing(t, 4)
	f := tempFile(t)
	_, err := f.WriteAt([]byte("0123456789abcdef"), 0)
	require.NoError(t, err)
	bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 4, Size: 4096, Sparse: true})
	requireRegister(t, err, sys.RegisterBuffers2) // sparse tables: 5.19
	defer bufs.Unregister()
	require.Nil(t, bufs.Buf(1))
	require.ErrorContains(t, bufs.Validate(1, 0, 1), "empty slot")

	// An empty slot fails in the kernel too.
	mem := bufs.Memory()
	queue(t, r, 1, func(s *sys.SQE) error { return sqe.ReadFixed(s, int(f.Fd()), mem[:4], 0, 1) })
	submit(t, r)
	require.Equal(t, unix.EFAULT, errno(t, wait(t, r).Res))

	// Attach part of the mapping to slot 1 and read into it.
	require.NoError(t, bufs.Update(1, mem[100:200]))
	require.NoError(t, bufs.Validate(1, 0, 100))
	require.Error(t, bufs.Validate(1, 0, 101))
	b := bufs.Buf(1)
	require.Len(t, b, 100)
	queue(t, r, 2, func(s *sys.SQE) error { return sqe.ReadFixed(s, int(f.Fd()), b[10:26], 0, 1) })
	submit(t, r)
	require.Equal(t, int32(16), wait(t, r).Res)
	require.Equal(t, "0123456789abcdef", string(mem[110:126]))

	// A range outside the registered buffer fails in the kernel: reg's
	// Validate catches it first.
	require.Error(t, bufs.Validate(1, 90, 16))
	queue(t, r, 3, func(s *sys.SQE) error { return sqe.ReadFixed(s, int(f.Fd()), mem[190:206], 0, 1) })
	submit(t, r)
	require.Equal(t, unix.EFAULT, errno(t, wait(t, r).Res))

	// Memory outside the mapping is refused; nil empties the slot.
	require.ErrorContains(t, bufs.Update(1, make([]byte, 10)), "does not lie inside")
	require.ErrorContains(t, bufs.Update(4, nil), "out of range")
	require.NoError(t, bufs.Update(1, nil))
	require.Nil(t, bufs.Buf(1))
}

func TestBuffersClone(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterCloneBuffers))
	src := newRing(t, 4)
	dst := newRing(t, 4)
	f := tempFile(t)
	_, err := f.WriteAt([]byte("cloned buffers"), 0)
	require.NoError(t, err)
	bufs, err := reg.RegisterBuffers(src, reg.BufferConfig{Count: 2, Size: 64})
	require.NoError(t, err)
	clone, err := bufs.Clone(dst, false)
	require.NoError(t, err)
	require.Equal(t, bufs.Len(), clone.Len())
	// Cloning again without replace: the destination has buffers.
	_, err = bufs.Clone(dst, false)
	require.ErrorIs(t, err, unix.EBUSY)
	require.ErrorContains(t, err, "REGISTER_CLONE_BUFFERS")

	// The clone reads into the same memory.
	b := clone.Buf(1)
	queue(t, dst, 1, func(s *sys.SQE) error { return sqe.ReadFixed(s, int(f.Fd()), b[:14], 0, 1) })
	submit(t, dst)
	require.Equal(t, int32(14), wait(t, dst).Res)
	require.Equal(t, "cloned buffers", string(bufs.Buf(1)[:14]), "same memory")

	// Replacing the destination's table: IORING_REGISTER_DST_REPLACE, 6.13.
	c2, err := bufs.Clone(dst, true)
	if !has(t, err) {
		require.Nil(t, c2)
		var ue *uring.UnsupportedError
		require.ErrorAs(t, err, &ue)
		require.Contains(t, ue.Feature, "IORING_REGISTER_DST_REPLACE")
		require.ErrorIs(t, err, unix.EBUSY, "6.12 checks for a table on dst first")
		c2 = clone // what dst has
		clone = nil
	}

	// The original goes away; the clone's memory stays mapped.
	require.NoError(t, bufs.Unregister())
	require.True(t, bufs.Unmapped())
	b = c2.Buf(0)
	queue(t, dst, 2, func(s *sys.SQE) error { return sqe.ReadFixed(s, int(f.Fd()), b[:6], 0, 0) })
	submit(t, dst)
	require.Equal(t, int32(6), wait(t, dst).Res)
	require.Equal(t, "cloned", string(b[:6]))
	require.NoError(t, c2.Unregister())
	if clone != nil {
		require.ErrorIs(t, clone.Unregister(), unix.ENXIO, "c2 replaced and unregistered the table")
	}
	require.True(t, c2.Unmapped())
}

// Unregistering with a request in flight never blocks: from 6.13 the
// kernel drops the table at once and the memory stays mapped until the
// request's CQE has been reaped and released; before, the kernel's call
// would wait for the request, so Unregister refuses with ErrBuffersInUse
// and changes nothing until the last Release.
func TestBuffersUnregisterWithInFlight(t *testing.T) {
	waits, err := uring.KernelAtLeast("6.13")
	require.NoError(t, err)
	waits = !waits
	t.Run(map[bool]string{true: "kernel-waits", false: "kernel-drops"}[waits], func(t *testing.T) {
		unregisterInFlight(t, waits)
	})
	// The refusal is reg's: check it on any kernel.
	if !waits {
		t.Run("refused", func(t *testing.T) {
			defer reg.SetUnregisterWaits(true)()
			unregisterInFlight(t, true)
		})
	}
}

func unregisterInFlight(t *testing.T, waits bool) {
	r := newRing(t, 4)
	rd, wr := pipe(t)
	bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 1, Size: 4096})
	require.NoError(t, err)
	b := bufs.Buf(0)
	require.NoError(t, bufs.Acquire())
	queue(t, r, 1, func(s *sys.SQE) error { return sqe.ReadFixed(s, rd, b[:32], sqe.CurrentPos, 0) })
	submit(t, r)
	noCQE(t, r)

	if waits {
		require.ErrorIs(t, bufs.Unregister(), reg.ErrBuffersInUse)
		require.False(t, bufs.Unmapped())
		require.NoError(t, bufs.Acquire(), "still registered")
		bufs.Release()
	} else {
		require.NoError(t, bufs.Unregister())
		require.False(t, bufs.Unmapped(), "a request is in flight")
		require.ErrorIs(t, bufs.Acquire(), reg.ErrUnregistered)
		require.ErrorIs(t, bufs.Unregister(), reg.ErrUnregistered)
	}
	require.Equal(t, int64(1), bufs.InFlight())

	_, err = unix.Write(wr, []byte("late data"))
	require.NoError(t, err)
	c := wait(t, r)
	require.Equal(t, int32(9), c.Res)
	require.Equal(t, "late data", string(b[:9]), "the kernel wrote into memory still mapped")
	require.NotNil(t, bufs.Buf(0))
	bufs.Release()
	if waits {
		require.False(t, bufs.Unmapped())
		require.NoError(t, bufs.Unregister(), "nothing in flight")
	}
	require.True(t, bufs.Unmapped())
	require.Nil(t, bufs.Buf(0))
	require.Nil(t, bufs.Memory())
}

func TestBuffersAllocator(t *testing.T) {
	r := newRing(t, 4)
	bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 8, Size: 16})
	require.NoError(t, err)
	defer bufs.Unregister()
	seen := map[int]bool{}
	for i := 0; i < 8; i++ {
		idx, b, ok := bufs.Get()
		require.True(t, ok)
		require.False(t, seen[idx], "index %d handed out twice", idx)
		seen[idx] = true
		require.Len(t, b, 16)
	}
	_, _, ok := bufs.Get()
	require.False(t, ok, "all out")
	require.NoError(t, bufs.Put(3))
	require.ErrorContains(t, bufs.Put(3), "index = 3 is not out")
	require.ErrorContains(t, bufs.Put(8), "out of range")
	idx, _, ok := bufs.Get()
	require.True(t, ok)
	require.Equal(t, 3, idx)
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		i, _, _ := bufs.Get()
		_ = bufs.Put(i)
	}), "Get/Put allocate nothing")
	require.NoError(t, bufs.Put(3))
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		_ = bufs.Acquire()
		bufs.Release()
	}), "Acquire/Release allocate nothing")
}

func TestBuffersHugePages(t *testing.T) {
	r := newRing(t, 4)
	bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 2, Size: 1 << 20, Huge: true})
	var he *reg.HugePageError
	if errors.As(err, &he) {
		// No huge pages reserved here: the error must say so and how to fix it.
		require.ErrorIs(t, err, unix.ENOMEM)
		require.Contains(t, err.Error(), "vm.nr_hugepages = ")
		require.Contains(t, err.Error(), "sysctl vm.nr_hugepages=N")
		t.Skipf("no huge pages reserved (the error was checked): %v", err)
	}
	require.NoError(t, err)
	defer bufs.Unregister()
	require.Zero(t, sys.SliceAddr(bufs.Memory())%(2<<20), "2 MiB aligned")
}

// TestBuffersWithoutAcquire: Acquire is reg's bookkeeping, not the
// kernel's. A request on a registered buffer works without it, and with
// one in flight that nothing acquired, Unregister (6.13 on) unmaps at
// once: the kernel still completes the request into the pages it holds.
func TestBuffersWithoutAcquire(t *testing.T) {
	drops, err := uring.KernelAtLeast("6.13")
	require.NoError(t, err)
	if !drops {
		t.Skip("before 6.13 the kernel's unregister waits for the request in flight")
	}
	r := newRing(t, 4)
	rd, wr := pipe(t)
	bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 1, Size: 4096})
	require.NoError(t, err)
	b := bufs.Buf(0)
	copy(b, "fixed write")
	queue(t, r, 1, func(s *sys.SQE) error { return sqe.WriteFixed(s, wr, b[:11], sqe.CurrentPos, 0) })
	submit(t, r)
	require.Equal(t, int32(11), wait(t, r).Res)
	got := make([]byte, 16)
	n, err := unix.Read(rd, got)
	require.NoError(t, err)
	require.Equal(t, "fixed write", string(got[:n]))

	queue(t, r, 2, func(s *sys.SQE) error { return sqe.ReadFixed(s, rd, b[:32], sqe.CurrentPos, 0) })
	submit(t, r)
	noCQE(t, r)
	require.Zero(t, bufs.InFlight())
	require.NoError(t, bufs.Unregister())
	require.True(t, bufs.Unmapped(), "nothing acquired: nothing keeps the mapping")
	_, err = unix.Write(wr, []byte("late data"))
	require.NoError(t, err)
	require.Equal(t, int32(9), wait(t, r).Res, "the kernel completed the read into the pages it holds")
}

// TestRegMemoryAfterRingClose: the ring's Close drops the kernel's
// registrations, not the memory reg mapped for them; Buffers.Unregister
// and BufPool.Close unmap it afterwards and return nil. Files hold nothing
// of reg's: their Unregister after Close only says the ring is closed.
func TestRegMemoryAfterRingClose(t *testing.T) {
	// Before 6.13 an unregister with requests in flight waits (and reg
	// refuses it); after the ring's Close there is no table to wait on.
	for _, waits := range []bool{true, false} {
		t.Run(fmt.Sprintf("unregister-waits=%v", waits), func(t *testing.T) {
			defer reg.SetUnregisterWaits(waits)()
			regMemoryAfterRingClose(t)
		})
	}
}

func regMemoryAfterRingClose(t *testing.T) {
	r, err := uring.New(4)
	require.NoError(t, err)
	bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 2, Size: 4096})
	require.NoError(t, err)
	require.NoError(t, bufs.Acquire())
	files, err := reg.RegisterFiles(r, []int{reg.Empty, reg.Empty}, nil)
	require.NoError(t, err)
	var pools []*reg.BufPool
	for i, mech := range []reg.PoolMechanism{reg.PoolKernelRing, reg.PoolUserRing, reg.PoolProvideBuffers} {
		p, err := reg.NewBufPool(r, reg.PoolConfig{Group: uint16(i), Count: 4, Size: 64, Mechanism: mech})
		if errors.Is(err, uring.ErrUnsupported) {
			continue // the kernel lacks this mechanism
		}
		require.NoError(t, err, mech)
		pools = append(pools, p)
	}
	require.NoError(t, r.Close())

	require.NoError(t, bufs.Unregister())
	require.False(t, bufs.Unmapped(), "an acquired request keeps the mapping")
	bufs.Release()
	require.True(t, bufs.Unmapped())
	require.ErrorIs(t, bufs.Unregister(), reg.ErrUnregistered)
	for _, p := range pools {
		require.NoError(t, p.Close(), p.Mechanism())
		require.True(t, p.Unmapped(), p.Mechanism())
	}
	require.ErrorIs(t, files.Unregister(), uring.ErrClosed)
}
