//go:build linux

package reg_test

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

func nop(s *sys.SQE) error { sqe.Nop(s); return nil }

func eventfdCount(t *testing.T, efd int) uint64 {
	t.Helper()
	var b [8]byte
	n, err := unix.Read(efd, b[:])
	if err == unix.EAGAIN {
		return 0
	}
	require.NoError(t, err)
	require.Equal(t, 8, n)
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
}

// eventfdSignalled waits until efd is readable and returns its count:
// the kernel may signal an eventfd after the CQE is visible (from an
// RCU callback, when the completing context may not signal at once), so
// a signal is waited for; the wait is bounded only as a hang guard.
func eventfdSignalled(t *testing.T, efd int) uint64 {
	t.Helper()
	pfd := []unix.PollFd{{Fd: int32(efd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(pfd, 60_000)
		if err == unix.EINTR {
			continue
		}
		require.NoError(t, err)
		require.Equal(t, 1, n, "the eventfd was never signalled")
		return eventfdCount(t, efd)
	}
}

func TestEventfd(t *testing.T) {
	r := newRing(t, 4)
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	require.NoError(t, err)
	defer unix.Close(efd)
	require.ErrorIs(t, reg.RegisterEventfd(r, -1, false), unix.EINVAL)

	requireRegister(t, reg.RegisterEventfd(r, efd, false), sys.RegisterEventfd)
	err = reg.RegisterEventfd(r, efd, false)
	require.ErrorIs(t, err, unix.EBUSY)
	require.ErrorContains(t, err, "an eventfd is already registered")
	queue(t, r, 1, nop)
	submit(t, r)
	wait(t, r)
	require.Equal(t, uint64(1), eventfdSignalled(t, efd))
	require.NoError(t, reg.UnregisterEventfd(r))
	err = reg.UnregisterEventfd(r)
	require.ErrorIs(t, err, unix.ENXIO)
	require.ErrorContains(t, err, "no eventfd is registered")
	queue(t, r, 2, nop)
	submit(t, r)
	wait(t, r)
	require.Zero(t, eventfdCount(t, efd), "unregistered: no signal")

	// Async only: an inline completion does not signal, one from io-wq does.
	requireRegister(t, reg.RegisterEventfd(r, efd, true), sys.RegisterEventfdAsync)
	queue(t, r, 3, nop)
	submit(t, r)
	wait(t, r)
	require.Zero(t, eventfdCount(t, efd), "inline completion")
	queue(t, r, 4, func(s *sys.SQE) error { sqe.Nop(s); sqe.SetAsync(s); return nil })
	submit(t, r)
	wait(t, r)
	require.Equal(t, uint64(1), eventfdSignalled(t, efd), "io-wq completion")
	require.NoError(t, reg.UnregisterEventfd(r))
}

func TestProbe(t *testing.T) {
	r := newRing(t, 4)
	p, err := reg.Probe(r)
	requireRegister(t, err, sys.RegisterProbe)
	require.True(t, p.Supported(sys.OpNop))
	require.True(t, p.Supported(sys.OpReadFixed))
	require.GreaterOrEqual(t, p.LastOp, sys.OpProvideBuffers)
	ops := p.Ops()
	require.Equal(t, sys.OpNop, ops[0])
	for _, op := range ops {
		require.LessOrEqual(t, op, p.LastOp)
	}
	require.False(t, p.Supported(sys.Op(255)))
}

func TestQueryOpcodes(t *testing.T) {
	q, err := reg.QueryOpcodes()
	requireRegister(t, err, sys.RegisterQuery)
	p, err := reg.Probe(newRing(t, 2))
	require.NoError(t, err)
	require.Equal(t, uint32(p.LastOp)+1, q.Ops, "query and probe agree")
	require.GreaterOrEqual(t, q.RegisterOps, uint32(sys.RegisterQuery)+1)
	require.NotZero(t, q.Features&sys.FeatNoDrop)
	require.NotZero(t, q.SetupFlags&sys.SetupDeferTaskrun)
	require.NotZero(t, q.EnterFlags&sys.EnterGetEvents)
	require.NotZero(t, q.SQEFlags&sys.SQEFixedFile)
}

func TestPersonality(t *testing.T) {
	r := newRing(t, 4)
	id, err := reg.RegisterPersonality(r)
	requireRegister(t, err, sys.RegisterPersonality)
	require.NotZero(t, id)
	queue(t, r, 1, func(s *sys.SQE) error { sqe.Nop(s); sqe.SetPersonality(s, uint16(id)); return nil })
	submit(t, r)
	require.Equal(t, int32(0), wait(t, r).Res)
	require.NoError(t, reg.UnregisterPersonality(r, id))
	err = reg.UnregisterPersonality(r, id)
	require.ErrorIs(t, err, unix.EINVAL)
	require.ErrorContains(t, err, "no personality with this id")
	queue(t, r, 2, func(s *sys.SQE) error { sqe.Nop(s); sqe.SetPersonality(s, uint16(id)); return nil })
	submit(t, r)
	require.Equal(t, unix.EINVAL, errno(t, wait(t, r).Res))
}

func TestRestricted(t *testing.T) {
	_, err := reg.NewRestricted(4, reg.Policy{})
	require.ErrorContains(t, err, "allows nothing")
	_, err = reg.NewRestricted(4, reg.Policy{Ops: []sys.Op{200}})
	require.ErrorContains(t, err, "Ops[0] = 200 is not an opcode")

	r, err := reg.NewRestricted(4, reg.Policy{
		Ops:         []sys.Op{sys.OpNop, sys.OpRead},
		RegisterOps: []sys.RegisterOp{sys.RegisterProbe},
		SQEFlags:    sys.SQEIOLink,
	})
	requireRegister(t, err, sys.RegisterRestrictions)
	defer r.Close()

	// Allowed: the ring works.
	queue(t, r, 1, nop)
	queue(t, r, 2, func(s *sys.SQE) error { sqe.Nop(s); sqe.SetLink(s); return nil })
	queue(t, r, 3, nop)
	submit(t, r)
	for ud, c := range waitN(t, r, 3) {
		require.Equal(t, int32(0), c.Res, "user_data %d", ud)
	}
	// A disallowed op and a disallowed flag: EACCES.
	rd, _ := pipe(t)
	queue(t, r, 4, func(s *sys.SQE) error { return sqe.Write(s, rd, []byte("x"), 0) })
	submit(t, r)
	require.Equal(t, unix.EACCES, errno(t, wait(t, r).Res))
	queue(t, r, 5, func(s *sys.SQE) error { sqe.Nop(s); sqe.SetAsync(s); return nil })
	submit(t, r)
	require.Equal(t, unix.EACCES, errno(t, wait(t, r).Res))
	// Register opcodes: allowed works, others fail with EACCES, explained.
	_, err = reg.Probe(r)
	require.NoError(t, err)
	_, err = reg.RegisterPersonality(r)
	require.ErrorIs(t, err, unix.EACCES)
	require.ErrorContains(t, err, "restrictions forbid")
	// Restrictions on an enabled ring: EBADFD, explained.
	err = reg.RegisterRestrictions(newRing(t, 2), reg.Policy{Ops: []sys.Op{sys.OpNop}})
	require.ErrorIs(t, err, unix.EBADFD)
	require.ErrorContains(t, err, "not disabled")

	// By hand: disabled ring, submit refused until enabled.
	d := newRing(t, 2, uring.WithDisabled())
	require.NoError(t, reg.RegisterRestrictions(d, reg.Policy{Ops: []sys.Op{sys.OpNop}}))
	require.ErrorIs(t, reg.RegisterRestrictions(d, reg.Policy{Ops: []sys.Op{sys.OpNop}}), unix.EBUSY)
	require.NoError(t, reg.EnableRings(d))
	err = reg.EnableRings(d)
	require.ErrorIs(t, err, unix.EACCES, "ENABLE_RINGS is not in the policy")
	err = reg.EnableRings(newRing(t, 2))
	require.ErrorIs(t, err, unix.EBADFD)
	require.ErrorContains(t, err, "already enabled")
	queue(t, d, 1, nop)
	submit(t, d)
	require.Equal(t, int32(0), wait(t, d).Res)
}

func TestIOWQ(t *testing.T) {
	runtime.LockOSThread() // io-wq is per thread: this one's, made with the ring
	defer runtime.UnlockOSThread()
	r := newRing(t, 4)
	var set unix.CPUSet
	require.ErrorContains(t, reg.SetIOWQAffinity(r, &set), "set is empty")
	set.Set(0)
	requireRegister(t, reg.SetIOWQAffinity(r, &set), sys.RegisterIOWQAff)
	require.NoError(t, reg.ClearIOWQAffinity(r))

	cur, err := reg.IOWQMaxWorkers(r)
	requireRegister(t, err, sys.RegisterIOWQMaxWorkers)
	require.NotZero(t, cur.Bound)
	require.NotZero(t, cur.Unbound)
	prev, err := reg.SetIOWQMaxWorkers(r, reg.Workers{Bound: 2, Unbound: 3})
	require.NoError(t, err)
	require.Equal(t, cur, prev)
	now, err := reg.IOWQMaxWorkers(r)
	require.NoError(t, err)
	require.Equal(t, reg.Workers{Bound: 2, Unbound: 3}, now)
	// Zero leaves a limit alone.
	_, err = reg.SetIOWQMaxWorkers(r, reg.Workers{Unbound: 5})
	require.NoError(t, err)
	now, err = reg.IOWQMaxWorkers(r)
	require.NoError(t, err)
	require.Equal(t, reg.Workers{Bound: 2, Unbound: 5}, now)
}

const iowqChildEnv = "URING_TEST_IOWQ_CHILD"

// A thread that never used io_uring has no io-wq: it has no limits to read
// or affinity to set, and the errors say why; the limits it sets are the
// ring's, applied to the io-wq of the thread that made the ring. It runs
// in a child process, where no thread but the test's has used io_uring
// (here the runtime may hand a goroutine any idle thread).
func TestIOWQOnThreadWithoutOne(t *testing.T) {
	if os.Getenv(iowqChildEnv) == "" {
		t.Log(testutil.Child(t, "TestIOWQOnThreadWithoutOne", iowqChildEnv+"=1"))
		return
	}
	runtime.LockOSThread() // every io_uring call of the child on this thread
	defer runtime.UnlockOSThread()
	r := newRing(t, 4)
	_, err := reg.SetIOWQMaxWorkers(r, reg.Workers{Bound: 2, Unbound: 5})
	requireRegister(t, err, sys.RegisterIOWQMaxWorkers)

	var getErr, affErr, setErr error
	var prev reg.Workers
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread() // not the test's thread: no io_uring use yet
		defer runtime.UnlockOSThread()
		defer close(done)
		var set unix.CPUSet
		set.Set(0)
		_, getErr = reg.IOWQMaxWorkers(r)
		affErr = reg.SetIOWQAffinity(r, &set)
		prev, setErr = reg.SetIOWQMaxWorkers(r, reg.Workers{Bound: 1})
	}()
	<-done
	require.ErrorIs(t, getErr, reg.ErrNoIOWQ)
	require.ErrorIs(t, affErr, unix.EINVAL)
	require.ErrorContains(t, affErr, "the calling thread has no io-wq")
	require.NoError(t, setErr)
	require.Equal(t, reg.Workers{}, prev, "no previous limits on a thread without io-wq")
	now, err := reg.IOWQMaxWorkers(r)
	require.NoError(t, err)
	require.Equal(t, reg.Workers{Bound: 1, Unbound: 5}, now, "the ring's limit reached this thread's io-wq")
}

func TestRingFds(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := newRing(t, 4)
	other := newRing(t, 4)
	idx, err := reg.RegisterRingFd(r, r.Fd())
	requireRegister(t, err, sys.RegisterRingFds)
	idx2, err := reg.RegisterRingFd(r, other.Fd())
	require.NoError(t, err)
	require.NotEqual(t, idx, idx2)

	// Register and enter through the indices (register calls through an
	// index: IORING_REGISTER_USE_REGISTERED_RING, 6.3).
	viaIndex := has(t, uring.CheckRegisterOp(sys.RegisterUseRegisteredRing))
	_, err = reg.Probe(idxTarget(idx))
	if viaIndex {
		require.NoError(t, err)
	} else {
		require.ErrorIs(t, err, uring.ErrUnsupported)
		require.ErrorContains(t, err, "IORING_REGISTER_USE_REGISTERED_RING")
	}
	rd, wr := pipe(t)
	buf := make([]byte, 4)
	queue(t, other, 7, func(s *sys.SQE) error { return sqe.Read(s, rd, buf, sqe.CurrentPos) })
	submit(t, other)
	_, err = unix.Write(wr, []byte("ping"))
	require.NoError(t, err)
	_, err = sys.Enter(idx2, 0, 1, sys.EnterRegisteredRing|sys.EnterGetEvents)
	require.NoError(t, err)
	require.Equal(t, uint32(1), other.CQReady(), "the wait through the index saw the CQE")
	require.Equal(t, uint64(7), wait(t, other).UserData)

	_, err = reg.RegisterRingFd(r, 0)
	require.ErrorIs(t, err, unix.EOPNOTSUPP, "stdin is not a ring")
	require.NoError(t, reg.UnregisterRingFd(r, idx2))
	require.NoError(t, reg.UnregisterRingFd(r, idx))
	_, err = reg.Probe(idxTarget(idx))
	if viaIndex {
		require.ErrorIs(t, err, unix.EBADF)
	} else {
		require.ErrorIs(t, err, uring.ErrUnsupported)
	}
	require.ErrorContains(t, reg.UnregisterRingFd(r, 16), "not in [0, 16)")
}

func TestNAPI(t *testing.T) {
	r := newRing(t, 4)
	err := reg.RegisterNAPI(r, reg.NAPIConfig{BusyPoll: 50 * time.Microsecond, PreferBusyPoll: true, Tracking: reg.NAPIDynamic})
	requireRegister(t, err, sys.RegisterNAPI)
	was, err := reg.UnregisterNAPI(r)
	require.NoError(t, err)
	require.Equal(t, reg.NAPIConfig{BusyPoll: 50 * time.Microsecond, PreferBusyPoll: true}, was)

	// Static tracking and the NAPI opcodes: 6.13.
	err = reg.RegisterNAPI(r, reg.NAPIConfig{BusyPoll: 10 * time.Microsecond, Tracking: reg.NAPIStatic})
	if !has(t, uring.CheckCapability(uring.CapNAPIStaticTracking)) {
		require.ErrorIs(t, err, uring.ErrUnsupported)
		return
	}
	require.NoError(t, err)
	// Static ids: the kernel tracks whatever id it is given.
	require.NoError(t, reg.AddNAPIID(r, 1<<30))
	err = reg.AddNAPIID(r, 1<<30)
	require.ErrorIs(t, err, unix.EEXIST)
	require.ErrorContains(t, err, "already tracked")
	require.NoError(t, reg.DelNAPIID(r, 1<<30))
	err = reg.DelNAPIID(r, 1<<30)
	require.ErrorIs(t, err, unix.ENOENT)
	var re *reg.Error
	require.ErrorAs(t, err, &re)
	require.Equal(t, sys.RegisterNAPI, re.Op)
	_, err = reg.UnregisterNAPI(r)
	require.NoError(t, err)
	err = reg.RegisterNAPI(r, reg.NAPIConfig{Tracking: 7})
	require.ErrorIs(t, err, unix.EINVAL)
	require.ErrorContains(t, err, "tracking strategy")
}

func TestClock(t *testing.T) {
	r := newRing(t, 4)
	require.ErrorContains(t, reg.SetClock(r, unix.CLOCK_REALTIME), "neither CLOCK_MONOTONIC nor CLOCK_BOOTTIME")
	requireRegister(t, reg.SetClock(r, unix.CLOCK_BOOTTIME), sys.RegisterClock)
	start := time.Now()
	_, err := r.WaitCQETimeout(20 * time.Millisecond)
	require.ErrorIs(t, err, uring.ErrTimeout)
	require.GreaterOrEqual(t, time.Since(start), 15*time.Millisecond)
	require.NoError(t, reg.SetClock(r, unix.CLOCK_MONOTONIC))
}

func TestResizeKeepsPendingCQEs(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := newRing(t, 4, uring.WithSingleIssuer(), uring.WithDeferTaskrun())
	for i := uint64(1); i <= 3; i++ {
		queue(t, r, i, nop)
	}
	submit(t, r)
	requireRegister(t, reg.Resize(r, 16, 64), sys.RegisterResizeRings)
	require.Equal(t, uint32(16), r.SQEntries())
	require.Equal(t, uint32(64), r.CQEntries())
	cqes := waitN(t, r, 3)
	for i := uint64(1); i <= 3; i++ {
		require.Contains(t, cqes, i)
	}
	// The resized ring keeps working.
	for i := uint64(10); i < 26; i++ {
		queue(t, r, i, nop)
	}
	submit(t, r)
	require.Len(t, waitN(t, r, 16), 16)

	// Without DEFER_TASKRUN the kernel refuses, explained.
	err := reg.Resize(newRing(t, 4), 8, 16)
	require.ErrorIs(t, err, unix.EINVAL)
	require.ErrorContains(t, err, "REGISTER_RESIZE_RINGS")
	require.ErrorContains(t, err, "DEFER_TASKRUN")
}

func TestWaitRegion(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterMemRegion))
	_, err := reg.RegisterWaitRegion(newRing(t, 2), 4)
	require.ErrorIs(t, err, unix.EINVAL, "needs a disabled ring")
	require.ErrorContains(t, err, "created disabled")

	r, err := uring.New(4, uring.WithDisabled())
	require.NoError(t, err)
	defer r.Close()
	region, err := reg.RegisterWaitRegion(r, 4)
	require.NoError(t, err)
	require.Equal(t, 4, region.Len())
	require.NoError(t, r.Enable())

	w := region.Wait(2)
	require.NotNil(t, w)
	require.Nil(t, region.Wait(4))
	*w = sys.RegWait{Ts: sys.Timespec{Nsec: int64(20 * time.Millisecond)}, Flags: sys.RegWaitTS}
	start := time.Now()
	_, err = sys.EnterRegWait(r.Fd(), 0, 1, sys.EnterGetEvents, region.Offset(2))
	require.ErrorIs(t, err, unix.ETIME)
	require.GreaterOrEqual(t, time.Since(start), 15*time.Millisecond)

	rd, wr := pipe(t)
	buf := make([]byte, 4)
	queue(t, r, 5, func(s *sys.SQE) error { return sqe.Read(s, rd, buf, sqe.CurrentPos) })
	submit(t, r)
	_, err = unix.Write(wr, []byte("wake"))
	require.NoError(t, err)
	_, err = sys.EnterRegWait(r.Fd(), 0, 1, sys.EnterGetEvents, region.Offset(2))
	require.NoError(t, err)
	require.Equal(t, uint32(1), r.CQReady())
	c := wait(t, r)
	require.Equal(t, uint64(5), c.UserData)
	require.NoError(t, r.Close())
	require.NoError(t, region.Free())
	require.Nil(t, region.Wait(0))
	require.Error(t, region.Free())
}

func TestSyncCancel(t *testing.T) {
	r := newRing(t, 4)
	rd, _ := pipe(t)
	buf := make([]byte, 8)
	queue(t, r, 42, func(s *sys.SQE) error { return sqe.Read(s, rd, buf, sqe.CurrentPos) })
	queue(t, r, 43, func(s *sys.SQE) error { return sqe.Read(s, rd, buf, sqe.CurrentPos) })
	submit(t, r)
	noCQE(t, r)
	requireRegister(t, reg.SyncCancel(r, reg.Cancel{UserData: 42}), sys.RegisterSyncCancel)
	c := wait(t, r)
	require.Equal(t, uint64(42), c.UserData)
	require.Equal(t, unix.ECANCELED, errno(t, c.Res))

	err := reg.SyncCancel(r, reg.Cancel{UserData: 999, Timeout: 100 * time.Millisecond})
	require.ErrorIs(t, err, unix.ENOENT)
	require.ErrorContains(t, err, "no request matched")
	noCQE(t, r)

	require.NoError(t, reg.SyncCancel(r, reg.Cancel{Fd: rd, Flags: sys.AsyncCancelFd | sys.AsyncCancelAll}))
	c = wait(t, r)
	require.Equal(t, uint64(43), c.UserData)
	require.Equal(t, unix.ECANCELED, errno(t, c.Res))
	require.ErrorContains(t, reg.SyncCancel(r, reg.Cancel{Timeout: -1}), "negative")
}

func TestSendMsgRing(t *testing.T) {
	r := newRing(t, 4)
	requireRegister(t, reg.SendMsgRing(r, 99, 7, 0, 0), sys.RegisterSendMsgRing)
	require.Equal(t, sys.CQE{UserData: 99, Res: 7}, wait(t, r))
	require.NoError(t, reg.SendMsgRing(r, 100, -5, sys.MsgRingFlagsPass, 0x50000))
	require.Equal(t, sys.CQE{UserData: 100, Res: -5, Flags: 0x50000}, wait(t, r))
	require.ErrorContains(t, reg.SendMsgRing(r, 1, 1, 1<<5, 0), "flags")

	// To a disabled ring: EBADFD, explained.
	d := newRing(t, 2, uring.WithDisabled())
	err := reg.SendMsgRing(d, 1, 1, 0, 0)
	require.ErrorIs(t, err, unix.EBADFD)
	require.ErrorContains(t, err, "REGISTER_SEND_MSG_RING")
	// To something that is not a ring.
	rd, _ := pipe(t)
	err = reg.SendMsgRing(reg.FdTarget(rd), 1, 1, 0, 0)
	require.ErrorIs(t, err, unix.EBADFD)
}

// An opcode newer than the kernel: EINVAL, reported as unsupported with
// the release that adds it.
func TestErrorUnsupported(t *testing.T) {
	r := newRing(t, 2)
	// The newest register opcode the probe says this kernel lacks.
	op, found := sys.RegisterOp(0), false
	for o := sys.RegisterOp(64); o > 0 && !found; o-- {
		if o.Since() != "" && !has(t, uring.CheckRegisterOp(o)) {
			op, found = o, true
		}
	}
	if !found {
		t.Skip("this kernel has every register opcode sys knows: none is missing")
	}
	err := reg.RegisterRaw(r, op)
	require.ErrorIs(t, err, unix.EINVAL)
	require.ErrorIs(t, err, uring.ErrUnsupported)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.ErrorContains(t, err, uring.RegisterOpName(op)+" needs Linux "+op.Since())
	// A known opcode failing for another reason is not "unsupported".
	err = reg.RegisterRaw(r, sys.UnregisterEventfd)
	require.ErrorIs(t, err, unix.ENXIO)
	require.NotErrorIs(t, err, uring.ErrUnsupported)
}
