//go:build linux

package sqe_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestExecTimeouts(t *testing.T) {
	r := newRing(t)
	var ts sys.Timespec
	start := time.Now()
	c := run(t, r, func(s *sys.SQE) error { return sqe.Timeout(s, &ts, 20*time.Millisecond, 0, 0) })
	require.Equal(t, unix.ETIME, errno(c))
	require.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
	c = run(t, r, func(s *sys.SQE) error {
		return sqe.Timeout(s, &ts, time.Millisecond, 0, sys.TimeoutETimeSuccess|sys.TimeoutBoottime)
	})
	require.Equal(t, unix.ETIME, errno(c))

	// Count: completes with 0 after one other CQE.
	var ts2 sys.Timespec
	prep(t, r, 2, func(s *sys.SQE) error { return sqe.Timeout(s, &ts2, 10*time.Second, 1, 0) })
	prep(t, r, 3, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	cs := byUD(submitWait(t, r, 2))
	require.Equal(t, int32(0), cs[2].Res)

	// Absolute (realtime) deadline.
	var ts3 sys.Timespec
	c = run(t, r, func(s *sys.SQE) error { return sqe.TimeoutAt(s, &ts3, time.Now().Add(10*time.Millisecond), 0) })
	require.Equal(t, unix.ETIME, errno(c))

	// Multishot: three expiries, F_MORE on all but the last.
	var ts4 sys.Timespec
	prep(t, r, 4, func(s *sys.SQE) error { return sqe.Timeout(s, &ts4, 2*time.Millisecond, 3, sys.TimeoutMultishot) })
	cs2 := submitWait(t, r, 3)
	for i, c := range cs2 {
		require.Equal(t, unix.ETIME, errno(c))
		require.Equal(t, i < 2, cqe.More(&c), "CQE %d", i)
	}

	// Update a pending timeout to fire soon, then remove another.
	var ts5, ts6 sys.Timespec
	prep(t, r, 5, func(s *sys.SQE) error { return sqe.Timeout(s, &ts5, time.Hour, 0, 0) })
	_, err := r.Submit()
	require.NoError(t, err)
	prep(t, r, 6, func(s *sys.SQE) error { return sqe.TimeoutUpdate(s, &ts6, time.Millisecond, 5, 0) })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, int32(0), cs[6].Res)
	require.Equal(t, unix.ETIME, errno(cs[5]))

	var ts7 sys.Timespec
	prep(t, r, 7, func(s *sys.SQE) error { return sqe.Timeout(s, &ts7, time.Hour, 0, 0) })
	prep(t, r, 8, func(s *sys.SQE) error { sqe.TimeoutRemove(s, 7); return nil })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, int32(0), cs[8].Res)
	require.Equal(t, unix.ECANCELED, errno(cs[7]))
	c = run(t, r, func(s *sys.SQE) error { sqe.TimeoutRemove(s, 7); return nil })
	require.Equal(t, unix.ENOENT, errno(c))
	runtime.KeepAlive(&ts)
}

func TestExecLinks(t *testing.T) {
	r := newRing(t)
	pr, pw := pipe(t)
	buf := make([]byte, 8)

	// A read on an empty pipe, limited by a link timeout: ECANCELED + ETIME.
	var ts sys.Timespec
	prep(t, r, 1, func(s *sys.SQE) error {
		if err := sqe.Read(s, pr, buf, sqe.CurrentPos); err != nil {
			return err
		}
		sqe.Link(s)
		return nil
	})
	prep(t, r, 2, func(s *sys.SQE) error { return sqe.LinkTimeout(s, &ts, 10*time.Millisecond, 0) })
	cs := byUD(submitWait(t, r, 2))
	require.Equal(t, unix.ECANCELED, errno(cs[1]))
	require.Equal(t, unix.ETIME, errno(cs[2]))

	// The same when the read wins: the timeout is cancelled.
	_, err := unix.Write(pw, []byte("data"))
	require.NoError(t, err)
	prep(t, r, 3, func(s *sys.SQE) error {
		if err := sqe.Read(s, pr, buf, sqe.CurrentPos); err != nil {
			return err
		}
		sqe.Link(s)
		return nil
	})
	prep(t, r, 4, func(s *sys.SQE) error { return sqe.LinkTimeout(s, &ts, time.Hour, 0) })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, int32(4), cs[3].Res)
	require.Equal(t, unix.ECANCELED, errno(cs[4]))

	// A failing head breaks a chain: followers get ECANCELED; a hard link
	// carries on.
	prep(t, r, 5, func(s *sys.SQE) error { sqe.NopResult(s, -int32(unix.EIO)); sqe.Link(s); return nil })
	prep(t, r, 6, func(s *sys.SQE) error { sqe.Nop(s); sqe.Link(s); return nil })
	prep(t, r, 7, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	cs = byUD(submitWait(t, r, 3))
	require.Equal(t, unix.EIO, errno(cs[5]))
	require.Equal(t, unix.ECANCELED, errno(cs[6]))
	require.Equal(t, unix.ECANCELED, errno(cs[7]))
	prep(t, r, 8, func(s *sys.SQE) error { sqe.NopResult(s, -int32(unix.EIO)); sqe.HardLink(s); return nil })
	prep(t, r, 9, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, unix.EIO, errno(cs[8]))
	require.Equal(t, int32(0), cs[9].Res)

	// Drain, Async, SkipSuccess: a skipped success posts nothing.
	prep(t, r, 10, func(s *sys.SQE) error { sqe.Nop(s); sqe.SkipSuccess(s); return nil })
	prep(t, r, 11, func(s *sys.SQE) error { sqe.Nop(s); sqe.Drain(s); sqe.Async(s); return nil })
	cs2 := submitWait(t, r, 1)
	require.Equal(t, uint64(11), cs2[0].UserData)
	require.Zero(t, r.CQReady())

	// LinkTimeoutUpdate stretches a pending link timeout.
	var ts2, ts3 sys.Timespec
	prep(t, r, 12, func(s *sys.SQE) error {
		if err := sqe.Read(s, pr, buf, sqe.CurrentPos); err != nil {
			return err
		}
		sqe.Link(s)
		return nil
	})
	prep(t, r, 13, func(s *sys.SQE) error { return sqe.LinkTimeout(s, &ts2, time.Hour, 0) })
	_, err = r.Submit()
	require.NoError(t, err)
	prep(t, r, 14, func(s *sys.SQE) error { return sqe.LinkTimeoutUpdate(s, &ts3, time.Millisecond, 13, 0) })
	cs = byUD(submitWait(t, r, 3))
	require.Equal(t, int32(0), cs[14].Res)
	require.Equal(t, unix.ETIME, errno(cs[13]))
	require.Equal(t, unix.ECANCELED, errno(cs[12]))
	runtime.KeepAlive(buf)
}

func TestExecCancel(t *testing.T) {
	r := newRing(t)
	pr, _ := pipe(t)
	buf := make([]byte, 8)
	read := func(ud uint64) {
		prep(t, r, ud, func(s *sys.SQE) error { return sqe.Read(s, pr, buf, sqe.CurrentPos) })
	}

	// By user_data; a second cancel finds nothing.
	read(1)
	_, err := r.Submit()
	require.NoError(t, err)
	prep(t, r, 2, func(s *sys.SQE) error { return sqe.Cancel(s, 1, 0) })
	cs := byUD(submitWait(t, r, 2))
	require.Equal(t, unix.ECANCELED, errno(cs[1]))
	require.Equal(t, int32(0), cs[2].Res)
	c := run(t, r, func(s *sys.SQE) error { return sqe.Cancel(s, 1, 0) })
	require.Equal(t, unix.ENOENT, errno(c))

	// By opcode, all matches.
	read(3)
	read(4)
	_, err = r.Submit()
	require.NoError(t, err)
	prep(t, r, 5, func(s *sys.SQE) error { return sqe.CancelOp(s, sys.OpRead, sys.AsyncCancelAll) })
	cs = byUD(submitWait(t, r, 3))
	require.Equal(t, int32(2), cs[5].Res)
	require.Equal(t, unix.ECANCELED, errno(cs[3]))
	require.Equal(t, unix.ECANCELED, errno(cs[4]))

	// Any.
	read(6)
	_, err = r.Submit()
	require.NoError(t, err)
	prep(t, r, 7, func(s *sys.SQE) error { sqe.CancelAny(s); return nil })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, int32(1), cs[7].Res)
	require.Equal(t, unix.ECANCELED, errno(cs[6]))

	// By fixed file.
	registerFiles(t, r, []int32{int32(pr)})
	prep(t, r, 8, func(s *sys.SQE) error {
		if err := sqe.Read(s, 0, buf, sqe.CurrentPos); err != nil {
			return err
		}
		return sqe.FixedFile(s, 0)
	})
	_, err = r.Submit()
	require.NoError(t, err)
	prep(t, r, 9, func(s *sys.SQE) error { return sqe.CancelFixedFd(s, 0, 0) })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, int32(0), cs[9].Res)
	require.Equal(t, unix.ECANCELED, errno(cs[8]))

	// EALREADY: an open of a FIFO blocks inside an io-wq worker, where it
	// can only be interrupted, not cancelled.
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, unix.Mkfifo(fifo, 0o600))
	path := cpath(t, fifo)
	prep(t, r, 10, func(s *sys.SQE) error {
		if err := sqe.Openat(s, unix.AT_FDCWD, path, unix.O_RDONLY, 0); err != nil {
			return err
		}
		sqe.Async(s) // straight to io-wq, where the open blocks for a writer
		return nil
	})
	_, err = r.Submit()
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond) // let the worker block in open
	prep(t, r, 11, func(s *sys.SQE) error { return sqe.Cancel(s, 10, 0) })
	_, err = r.Submit()
	require.NoError(t, err)
	first := wait(t, r, 1)[0]
	got := map[uint64]sys.CQE{first.UserData: first}
	if first.UserData == 11 && first.Res == -int32(unix.EALREADY) {
		// The open may still be blocked: give it a writer (ENXIO when the
		// reader is gone already).
		if w, err := unix.Open(fifo, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
			defer unix.Close(w)
		}
	}
	for _, c := range wait(t, r, 1) {
		got[c.UserData] = c
	}
	require.Equal(t, unix.EALREADY, errno(got[11]), "cancel of a running io-wq request")
	if got[10].Res >= 0 {
		unix.Close(int(got[10].Res))
	} else {
		// Interrupted: EINTR, ECANCELED, or the kernel-internal ERESTARTSYS (512).
		require.Contains(t, []unix.Errno{unix.EINTR, unix.ECANCELED, 512}, errno(got[10]))
	}
	runtime.KeepAlive(buf)
}

func TestExecMsgRing(t *testing.T) {
	src := newRing(t)
	dst := newRing(t)
	needOp(t, src, sys.OpMsgRing)
	require.Equal(t, 0, runOK(t, src, func(s *sys.SQE) error { return sqe.MsgRing(s, dst.Fd(), 77, 0xabc) }))
	c := wait(t, dst, 1)[0]
	require.Equal(t, uint64(0xabc), c.UserData)
	require.Equal(t, int32(77), c.Res)

	prep(t, src, 1, func(s *sys.SQE) error {
		if err := sqe.MsgRingCQEFlags(s, dst.Fd(), -5, 0xdef, 0x10000); err != nil {
			return err
		}
		sqe.SkipSuccess(s)
		return nil
	})
	_, err := src.Submit()
	require.NoError(t, err)
	c = wait(t, dst, 1)[0]
	require.Equal(t, uint64(0xdef), c.UserData)
	require.Equal(t, int32(-5), c.Res)
	require.Equal(t, sys.CQEFlags(0x10000), c.Flags, "flags passed through")
	time.Sleep(5 * time.Millisecond)
	require.Zero(t, src.CQReady(), "SkipSuccess: no CQE on the sender")

	// Pass a registered file from slot 0 of src to slot 1 of dst.
	f, _ := tempFile(t, []byte("passed"))
	registerFiles(t, src, []int32{int32(f.Fd())})
	registerFiles(t, dst, []int32{-1, -1})
	require.Equal(t, 0, runOK(t, src, func(s *sys.SQE) error { return sqe.MsgRingFd(s, dst.Fd(), 0, 1, 0x55, 0) }))
	c = wait(t, dst, 1)[0]
	require.Equal(t, uint64(0x55), c.UserData)
	require.Equal(t, int32(0), c.Res)
	buf := make([]byte, 16)
	n := runOK(t, dst, func(s *sys.SQE) error {
		if err := sqe.Read(s, 0, buf, 0); err != nil {
			return err
		}
		return sqe.FixedFile(s, 1)
	})
	require.Equal(t, "passed", string(buf[:n]))

	// With MsgRingCQESkip the target gets the file but no CQE.
	require.Equal(t, 0, runOK(t, src, func(s *sys.SQE) error { return sqe.MsgRingFd(s, dst.Fd(), 0, 0, 0x56, sys.MsgRingCQESkip) }))
	n = runOK(t, dst, func(s *sys.SQE) error {
		if err := sqe.Read(s, 0, buf, 0); err != nil {
			return err
		}
		return sqe.FixedFile(s, 0)
	})
	require.Equal(t, "passed", string(buf[:n]))
	require.Zero(t, dst.CQReady())
}

func TestExecFutex(t *testing.T) {
	r := newRing(t)
	needOp(t, r, sys.OpFutexWaitv)
	futex := new(uint32)
	*futex = 1
	prep(t, r, 1, func(s *sys.SQE) error { return sqe.FutexWait(s, futex, 1, sqe.FutexBitsetAny, sqe.FutexPrivate) })
	_, err := r.Submit()
	require.NoError(t, err)
	prep(t, r, 2, func(s *sys.SQE) error { return sqe.FutexWake(s, futex, 1, sqe.FutexBitsetAny, sqe.FutexPrivate) })
	cs := byUD(submitWait(t, r, 2))
	require.Equal(t, int32(1), cs[2].Res, "one waiter woken")
	require.Equal(t, int32(0), cs[1].Res)

	c := run(t, r, func(s *sys.SQE) error { return sqe.FutexWait(s, futex, 2, sqe.FutexBitsetAny, sqe.FutexPrivate) })
	require.Equal(t, unix.EAGAIN, errno(c), "value differs")

	f2 := new(uint32)
	w := make([]sqe.FutexWaiter, 2)
	require.NoError(t, sqe.SetFutexWaiter(&w[0], futex, 1, sqe.FutexPrivate))
	require.NoError(t, sqe.SetFutexWaiter(&w[1], f2, 0, sqe.FutexPrivate))
	prep(t, r, 3, func(s *sys.SQE) error { return sqe.FutexWaitv(s, w) })
	_, err = r.Submit()
	require.NoError(t, err)
	prep(t, r, 4, func(s *sys.SQE) error { return sqe.FutexWake(s, f2, 1, sqe.FutexBitsetAny, sqe.FutexPrivate) })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, int32(1), cs[4].Res)
	require.Equal(t, int32(1), cs[3].Res, "index of the woken futex")
	runtime.KeepAlive(futex)
	runtime.KeepAlive(f2)
	runtime.KeepAlive(w)
}

func TestExecWaitid(t *testing.T) {
	r := newRing(t)
	needOp(t, r, sys.OpWaitid)
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	require.NoError(t, err)
	defer p.Release()
	var info unix.Siginfo
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Waitid(s, unix.P_PID, p.Pid, &info, unix.WEXITED) }))
	require.Equal(t, int32(unix.SIGCHLD), info.Signo)
	// The child is reaped: a second wait finds no such child.
	err = unix.Waitid(unix.P_PID, p.Pid, nil, unix.WEXITED|unix.WNOHANG, nil)
	require.ErrorIs(t, err, unix.ECHILD)
}
