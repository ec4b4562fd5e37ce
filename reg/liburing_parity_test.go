//go:build linux

package reg_test

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestQueryZcrxSCQ: the 6.19 queries, ring-less. 6.18 knows only the
// opcodes query and answers the others EOPNOTSUPP in their header.
func TestQueryZcrxSCQ(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterQuery))
	info, err := reg.QueryOpcodes()
	require.NoError(t, err)
	t.Logf("the kernel knows %d query opcodes", info.Queries)

	scq, err := reg.QuerySCQ()
	if err != nil {
		require.LessOrEqual(t, info.Queries, sys.QuerySCQ, "the kernel counts the SCQ query among its own but: %v", err)
	}
	testutil.Require(t, err)
	require.Positive(t, scq.HdrSize)
	require.Less(t, scq.HdrSize, uint64(4096))
	require.Positive(t, scq.HdrAlignment)
	require.Zero(t, scq.HdrAlignment&(scq.HdrAlignment-1), "alignment %d is not a power of two", scq.HdrAlignment)

	zc, err := reg.QueryZcrx()
	testutil.Require(t, err)
	require.GreaterOrEqual(t, zc.NrCtrlOpcodes, uint32(2), "FLUSH_RQ and EXPORT came with the query")
	require.NotZero(t, zc.RegisterFlags&uint64(sys.ZcrxRegImport))
	require.Positive(t, zc.RqHdrSize)

	ev, err := reg.QueryZcrxEvent()
	testutil.Require(t, err)
	require.Positive(t, ev.StatsSize)
}

// TestQueryUnknown: what an older kernel answers to each newer query is an
// UnsupportedError naming the query's release.
func TestQueryUnknown(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterQuery))
	for _, q := range []struct {
		name, since string
		run         func() error
	}{
		{"IO_URING_QUERY_ZCRX", "6.19", func() error { _, err := reg.QueryZcrx(); return err }},
		{"IO_URING_QUERY_SCQ", "6.19", func() error { _, err := reg.QuerySCQ(); return err }},
		{"IO_URING_QUERY_ZCRX_EVENT", "7.2", func() error { _, err := reg.QueryZcrxEvent(); return err }},
	} {
		err := q.run()
		if err == nil {
			continue
		}
		var ue *uring.UnsupportedError
		require.ErrorAs(t, err, &ue)
		require.Equal(t, q.since, ue.MinimumVersion)
		require.Contains(t, ue.Feature, q.name)
		require.ErrorIs(t, err, unix.EOPNOTSUPP)
		newer, verr := uring.KernelAtLeast(q.since)
		require.NoError(t, verr)
		require.False(t, newer, "kernel %s should know %s: %v", uring.KernelRelease(), q.name, err)
	}
}

func TestRegisterRegion(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterMemRegion))
	r := newRing(t, 4)
	for _, c := range []struct {
		cfg reg.RegionConfig
		msg string
	}{
		{reg.RegionConfig{}, "reg: RegisterRegion: Size = 0 is not a multiple of the page size (4096) in (0, 1 GiB]"},
		{reg.RegionConfig{Size: 1000}, "reg: RegisterRegion: Size = 1000 is not a multiple of the page size (4096) in (0, 1 GiB]"},
		{reg.RegionConfig{Size: 4096, Kernel: true}, "reg: RegisterRegion: t has no ring fd to map a kernel region through (WithRegisteredFdOnly, or CloseRingFd)"},
	} {
		tgt := reg.Target(r)
		if c.cfg.Kernel {
			tgt = idxTarget(0)
		}
		_, err := reg.RegisterRegion(tgt, c.cfg)
		require.EqualError(t, err, c.msg)
		require.ErrorIs(t, err, unix.EINVAL)
	}

	t.Run("User", func(t *testing.T) {
		r := newRing(t, 4)
		region, err := reg.RegisterRegion(r, reg.RegionConfig{Size: 8192})
		require.NoError(t, err)
		require.Len(t, region.Memory(), 8192)
		require.Zero(t, region.Len(), "not a wait region")
		_, err = reg.RegisterRegion(r, reg.RegionConfig{Size: 4096})
		require.ErrorIs(t, err, unix.EBUSY, "a ring has one region")
		require.NoError(t, r.Close())
		require.NoError(t, region.Free())
		require.Nil(t, region.Memory())
	})

	t.Run("Kernel", func(t *testing.T) {
		r := newRing(t, 4)
		region, err := reg.RegisterRegion(r, reg.RegionConfig{Size: 8192, Kernel: true})
		require.NoError(t, err)
		mem := region.Memory()
		require.Len(t, mem, 8192)
		require.Equal(t, make([]byte, 8192), mem, "kernel memory starts zeroed")
		copy(mem[4000:], "written")
		require.Equal(t, []byte("written"), mem[4000:4007])
		require.NoError(t, r.Close())
		require.NoError(t, region.Free())
	})

	// A kernel-allocated wait region, read by the ring's waits.
	t.Run("KernelWaitArgs", func(t *testing.T) {
		testutil.Require(t, uring.CheckEnterFlag(sys.EnterExtArgReg))
		r, err := uring.New(4, uring.WithDisabled())
		require.NoError(t, err)
		first, err := reg.RegisterRegion(r, reg.RegionConfig{Size: 4096, WaitArgs: true, Kernel: true})
		require.NoError(t, err)
		region, err := reg.RegisterRegion(r, reg.RegionConfig{Size: 4096, WaitArgs: true})
		require.ErrorIs(t, err, unix.EBUSY)
		require.Nil(t, region)
		require.NoError(t, r.Close())
		require.NoError(t, first.Free())

		r, err = uring.New(4, uring.WithDisabled())
		require.NoError(t, err)
		watchdog(t, r)
		region, err = reg.RegisterRegion(r, reg.RegionConfig{Size: 4096, WaitArgs: true, Kernel: true})
		require.NoError(t, err)
		require.Equal(t, 63, region.Len(), "64 slots less the last, which the kernel reads as slot 0")
		require.Nil(t, region.Wait(63))
		require.NoError(t, r.Enable())
		*region.Wait(62) = sys.RegWait{Ts: sys.Timespec{Nsec: int64(10 * time.Millisecond)}, Flags: sys.RegWaitTS}
		_, err = r.SubmitAndWaitReg(1, 62)
		require.ErrorIs(t, err, uring.ErrTimeout)
		queue(t, r, 8, func(s *sys.SQE) error { sqe.Nop(s); return nil })
		c, err := r.SubmitAndWaitReg(1, 62)
		require.NoError(t, err)
		require.Equal(t, uint64(8), c.UserData)
		r.CQESeen(c)
		require.NoError(t, r.Close())
		require.NoError(t, region.Free())
	})
}

// watchdog closes r if the test is still running after 10 s, so a wait
// the kernel never ends fails the test (with ErrClosed) instead of
// hanging it.
func watchdog(t *testing.T, r *uring.Ring) {
	tm := time.AfterFunc(10*time.Second, func() { r.Close() })
	t.Cleanup(func() { tm.Stop() })
}

// TestWaitRegionLastSlot pins why no wait region shows its last slot: the
// kernel (6.13 on) clamps a slot's offset with array_index_nospec(off,
// size-64), which turns the last slot's offset into 0, so a wait on it
// reads slot 0. Should a kernel read the last slot itself, the wait below
// would wait for ever (the slot is zero: no timeout) and the watchdog
// fails the test: reg's lastSlotAliases must then depend on the release.
func TestWaitRegionLastSlot(t *testing.T) {
	testutil.Require(t, uring.CheckEnterFlag(sys.EnterExtArgReg))
	r, err := uring.New(4, uring.WithDisabled())
	require.NoError(t, err)
	watchdog(t, r)
	region, err := reg.RegisterRegion(r, reg.RegionConfig{Size: 4096, WaitArgs: true})
	require.NoError(t, err)
	defer func() {
		require.NoError(t, r.Close())
		require.NoError(t, region.Free())
	}()
	require.NoError(t, r.Enable())
	*region.Wait(0) = sys.RegWait{Ts: sys.Timespec{Nsec: int64(10 * time.Millisecond)}, Flags: sys.RegWaitTS}
	_, err = r.SubmitAndWaitReg(1, 63)
	require.ErrorIs(t, err, uring.ErrTimeout, "a wait on the region's last slot did not take slot 0's timeout")
}

// TestSubmitAndWaitRegSubmits: SubmitAndWaitReg submits what GetSQE
// handed out also when the CQEs it waits for are ready already, and on an
// SQPOLL ring, whose SQ thread takes only what was published.
func TestSubmitAndWaitRegSubmits(t *testing.T) {
	testutil.Require(t, uring.CheckEnterFlag(sys.EnterExtArgReg))
	for _, c := range []struct {
		name string
		opts []uring.Option
	}{{"plain", nil}, {"SQPOLL", []uring.Option{uring.WithSQPoll(time.Second)}}} {
		t.Run(c.name, func(t *testing.T) {
			r, err := uring.New(4, append(c.opts, uring.WithDisabled())...)
			require.NoError(t, err)
			watchdog(t, r)
			region, err := reg.RegisterRegion(r, reg.RegionConfig{Size: 4096, WaitArgs: true})
			require.NoError(t, err)
			defer func() {
				require.NoError(t, r.Close())
				require.NoError(t, region.Free())
			}()
			require.NoError(t, r.Enable())
			// A timeout the watchdog outlasts: only a wait that never
			// sees its CQE reaches it.
			*region.Wait(0) = sys.RegWait{Ts: sys.Timespec{Sec: 5}, Flags: sys.RegWaitTS}

			queue(t, r, 1, func(s *sys.SQE) error { sqe.Nop(s); return nil })
			cq, err := r.SubmitAndWaitReg(1, 0)
			require.NoError(t, err)
			require.Equal(t, uint64(1), cq.UserData)

			// The CQE of 1 is still there: the wait is satisfied, and the
			// NOP queued since is submitted all the same.
			queue(t, r, 2, func(s *sys.SQE) error { sqe.Nop(s); return nil })
			cq, err = r.SubmitAndWaitReg(1, 0)
			require.NoError(t, err)
			require.Equal(t, uint64(1), cq.UserData)
			if c.opts == nil {
				require.Zero(t, r.SQReady(), "the NOP was not submitted")
			}
			r.CQESeen(cq)
			cq, err = r.WaitCQETimeout(5 * time.Second) // publishes nothing on SQPOLL: the NOP must be in already
			require.NoError(t, err)
			require.Equal(t, uint64(2), cq.UserData)
			r.CQESeen(cq)
			if c.opts == nil {
				require.Zero(t, r.SQReady())
				return
			}
			// The SQ thread posts a batch's inline completions before it
			// stores the new SQ head (io_submit_sqes: io_submit_state_end,
			// then io_commit_sqring), so CQE 2 can be seen a moment before
			// the head moves past its SQE; it does move.
			require.Eventually(t, func() bool { return r.SQReady() == 0 }, 5*time.Second, 100*time.Microsecond, "the SQ thread never consumed the NOP")
		})
	}
}

// TestZcrxCtrl: the operations reach the kernel, which has no zero-copy
// receive instance 0 on a fresh ring (6.19).
func TestZcrxCtrl(t *testing.T) {
	// struct zcrx_ctrl as liburing's callers fill it: zcrx_id, op, the rest 0.
	c := reg.ZcrxCtrlArg(5, sys.ZcrxCtrlExport)
	require.Equal(t, sys.ZcrxCtrl{ZcrxID: 5, Op: 1}, c)
	require.Equal(t, uintptr(72), sys.SizeOf[sys.ZcrxCtrl]()) // zcrx_id, op, __resv[2], a 48-byte union

	r := newRing(t, 4)
	err := reg.ZcrxFlushRQ(r, 0)
	if errors.Is(err, uring.ErrUnsupported) {
		testutil.Require(t, err)
	}
	require.ErrorIs(t, err, unix.ENXIO, "no instance 0 on a fresh ring")
	fd, err := reg.ZcrxExport(r, 0)
	require.ErrorIs(t, err, unix.ENXIO)
	require.Equal(t, -1, fd)
}

// denyAll is a classic BPF program that denies every request.
var denyAll = []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: 0}}

// allowUD7 allows the requests whose user_data is 7 (the low word of
// BPFCtx.UserData, at offset 0) and denies the rest.
var allowUD7 = []unix.SockFilter{
	{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0},
	{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: 7, Jt: 0, Jf: 1},
	{Code: unix.BPF_RET | unix.BPF_K, K: 1},
	{Code: unix.BPF_RET | unix.BPF_K, K: 0},
}

func TestBPFFilterArgument(t *testing.T) {
	var p runtime.Pinner
	defer p.Unpin()
	arg, err := reg.BPFRegisterArg(reg.BPFFilter{Op: sys.OpSocket, Program: allowUD7, DenyRest: true, PduSize: 12}, &p)
	require.NoError(t, err)
	// struct io_uring_bpf as liburing's callers fill it for one filter.
	require.Equal(t, sys.BPFRegister{CmdType: sys.BPFCmdFilter, Filter: sys.BPFFilter{
		Opcode: uint32(sys.OpSocket), Flags: sys.BPFFilterDenyRest, FilterLen: 4, PduSize: 12,
		FilterPtr: sys.SliceAddr(allowUD7)}}, arg)

	for _, c := range []struct {
		f   reg.BPFFilter
		msg string
	}{
		{reg.BPFFilter{Op: sys.OpNop}, "reg: RegisterBPFFilter: len(Program) = 0 is not in [1, 4096]"},
		{reg.BPFFilter{Op: sys.OpNop, Program: make([]unix.SockFilter, 4097)}, "reg: RegisterBPFFilter: len(Program) = 4097 is not in [1, 4096]"},
		{reg.BPFFilter{Op: sys.OpNop, Program: denyAll, PduSize: 25}, "reg: RegisterBPFFilter: PduSize = 25 exceeds the 24 bytes of BPFCtx.Args"},
	} {
		err := reg.RegisterBPFFilter(newRing(t, 2), c.f)
		require.EqualError(t, err, c.msg)
		require.ErrorIs(t, err, unix.EINVAL)
	}
	err = reg.RegisterTaskBPFFilter(reg.BPFFilter{Op: sys.OpNop})
	require.EqualError(t, err, "reg: RegisterTaskBPFFilter: len(Program) = 0 is not in [1, 4096]")
}

// TestBPFFilter denies NOPs on one ring (7.0): its NOPs complete with
// EACCES, unless their user_data is 7; another ring's NOPs run.
func TestBPFFilter(t *testing.T) {
	r := newRing(t, 4)
	err := reg.RegisterBPFFilter(r, reg.BPFFilter{Op: sys.OpNop, Program: allowUD7})
	if errors.Is(err, uring.ErrUnsupported) {
		testutil.Require(t, err)
	}
	require.NoError(t, err)
	queue(t, r, 6, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	queue(t, r, 7, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	submit(t, r)
	cs := waitN(t, r, 2)
	require.Equal(t, unix.EACCES, errno(t, cs[6].Res))
	require.Equal(t, int32(0), cs[7].Res)

	other := newRing(t, 4)
	queue(t, other, 6, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	submit(t, other)
	require.Equal(t, int32(0), wait(t, other).Res)
}

// TestTaskBPFFilter installs a task filter in a child process (it cannot
// be undone): rings the thread creates afterwards deny NOPs.
func TestTaskBPFFilter(t *testing.T) {
	if os.Getenv("URING_TEST_TASK_BPF_CHILD") == "" {
		r := newRing(t, 2)
		err := reg.RegisterBPFFilter(r, reg.BPFFilter{Op: sys.OpNop, Program: denyAll})
		if errors.Is(err, uring.ErrUnsupported) {
			testutil.Require(t, err)
		}
		require.NoError(t, err)
		testutil.Child(t, "TestTaskBPFFilter", "URING_TEST_TASK_BPF_CHILD=1")
		return
	}
	runtime.LockOSThread() // the filter is the thread's
	require.NoError(t, reg.RegisterTaskBPFFilter(reg.BPFFilter{Op: sys.OpNop, Program: denyAll}))
	r, err := uring.New(2)
	require.NoError(t, err)
	defer r.Close()
	queue(t, r, 1, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	submit(t, r)
	require.Equal(t, unix.EACCES, errno(t, wait(t, r).Res))
}

// fillBuffers writes a different byte into each buffer of b.
func fillBuffers(b *reg.Buffers, base byte) {
	for i := 0; i < b.Len(); i++ {
		for j := range b.Buf(i) {
			b.Buf(i)[j] = base + byte(i)
		}
	}
}

// sendFixed writes n bytes of fixed buffer index through r into a pipe
// and returns what came out, or the errno.
func sendFixed(t *testing.T, r *uring.Ring, buf []byte, index uint16) ([]byte, unix.Errno) {
	t.Helper()
	rd, wr := pipe(t)
	queue(t, r, 30, func(s *sys.SQE) error { return sqe.WriteFixed(s, wr, buf, sqe.CurrentPos, index) })
	submit(t, r)
	c := wait(t, r)
	if c.Res < 0 {
		return nil, unix.Errno(-c.Res)
	}
	out := make([]byte, c.Res)
	_, err := unix.Read(rd, out)
	require.NoError(t, err)
	return out, 0
}

func TestCloneRange(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterCloneBuffers))
	src := newRing(t, 4)
	b, err := reg.RegisterBuffers(src, reg.BufferConfig{Count: 4, Size: 4096})
	require.NoError(t, err)
	fillBuffers(b, 'a') // a b c d

	for _, c := range []struct {
		dst, src, n int
		msg         string
	}{
		{0, 0, 0, "reg: Buffers.CloneRange: n = 0 is not positive (Clone copies the whole table)"},
		{0, 3, 2, "reg: Buffers.CloneRange: srcOff = 3: slots [3, 3+2) are not all in the table of 4"},
		{0, -1, 1, "reg: Buffers.CloneRange: srcOff = -1: slots [-1, -1+1) are not all in the table of 4"},
		{16383, 0, 2, "reg: Buffers.CloneRange: dstOff = 16383: slots [16383, 16383+2) exceed the 16384 a table holds"},
	} {
		_, err := b.CloneRange(newRing(t, 2), c.dst, c.src, c.n)
		require.EqualError(t, err, c.msg)
	}

	dst := newRing(t, 4)
	c, err := b.CloneRange(dst, 2, 1, 2)
	if errors.Is(err, uring.ErrUnsupported) {
		testutil.Require(t, err)
	}
	require.NoError(t, err)
	require.Equal(t, 4, c.Len())
	require.Nil(t, c.Buf(0))
	require.Nil(t, c.Buf(1))
	require.Equal(t, b.Buf(1), c.Buf(2), "slot 2 of the clone is the source's slot 1")
	got, en := sendFixed(t, dst, c.Buf(2)[:5], 2)
	require.Zero(t, en)
	require.Equal(t, []byte("bbbbb"), got)
	got, en = sendFixed(t, dst, c.Buf(3)[:3], 3)
	require.Zero(t, en)
	require.Equal(t, []byte("ccc"), got)
	_, en = sendFixed(t, dst, b.Buf(0)[:3], 0)
	require.Equal(t, unix.EFAULT, en, "slot 0 of the clone is empty")

	_, err = b.CloneRange(dst, 0, 0, 1)
	require.ErrorIs(t, err, unix.EBUSY, "dst has a table now")

	// Into a table of dst2's own: slot 0 stays, slots 1 and 2 become the
	// source's 2 and 3.
	dst2 := newRing(t, 4)
	own, err := reg.RegisterBuffers(dst2, reg.BufferConfig{Count: 2, Size: 4096})
	require.NoError(t, err)
	fillBuffers(own, 'x') // x y
	require.NoError(t, b.CloneRangeInto(own, 1, 2, 2))
	require.Equal(t, 3, own.Len())
	for i, want := range []string{"xx", "cc", "dd"} {
		require.Equal(t, byte(want[0]), own.Buf(i)[0], "slot %d", i)
		got, en := sendFixed(t, dst2, own.Buf(i)[:2], uint16(i))
		require.Zero(t, en, "slot %d", i)
		require.Equal(t, []byte(want), got, "slot %d", i)
	}
	idx, buf, ok := own.Get()
	require.True(t, ok)
	require.Equal(t, 0, idx)
	require.NotNil(t, buf)

	// The source's table goes; the slots dst2 took from it stay mapped.
	require.NoError(t, b.Unregister())
	require.NoError(t, c.Unregister())
	require.True(t, bytes.Equal([]byte("dd"), own.Buf(2)[:2]))
	got, en = sendFixed(t, dst2, own.Buf(2)[:2], 2)
	require.Zero(t, en)
	require.Equal(t, []byte("dd"), got)
	require.NoError(t, own.Unregister())
	require.True(t, own.Unmapped())
}
