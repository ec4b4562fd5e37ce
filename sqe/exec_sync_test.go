//go:build linux

package sqe_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/internal/testutil"
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

	// Count: completes with 0 after one other CQE.
	var ts2 sys.Timespec
	prep(t, r, 2, func(s *sys.SQE) error { return sqe.Timeout(s, &ts2, 10*time.Second, 1, 0) })
	prep(t, r, 3, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	cs := byUD(submitWait(t, r, 2))
	require.Equal(t, int32(0), cs[2].Res)

	// Remove one (5.5); a second remove finds nothing.
	var ts7 sys.Timespec
	prep(t, r, 7, func(s *sys.SQE) error { return sqe.Timeout(s, &ts7, time.Hour, 0, 0) })
	prep(t, r, 8, func(s *sys.SQE) error { sqe.TimeoutRemove(s, 7); return nil })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, int32(0), cs[8].Res)
	require.Equal(t, unix.ECANCELED, errno(cs[7]))
	c = run(t, r, func(s *sys.SQE) error { sqe.TimeoutRemove(s, 7); return nil })
	require.Equal(t, unix.ENOENT, errno(c))

	t.Run("ETimeSuccessBoottime", func(t *testing.T) {
		c := run(t, r, func(s *sys.SQE) error {
			return sqe.Timeout(s, &ts, time.Millisecond, 0, sys.TimeoutETimeSuccess|sys.TimeoutBoottime)
		})
		kernelHas(t, c, "IORING_TIMEOUT_ETIME_SUCCESS with IORING_TIMEOUT_BOOTTIME", "5.16", unix.EINVAL)
		require.Equal(t, unix.ETIME, errno(c))
	})
	t.Run("At", func(t *testing.T) {
		// Absolute wall-clock deadline (IORING_TIMEOUT_REALTIME).
		var ts3 sys.Timespec
		c := run(t, r, func(s *sys.SQE) error { return sqe.TimeoutAt(s, &ts3, time.Now().Add(10*time.Millisecond), 0) })
		kernelHas(t, c, "IORING_TIMEOUT_REALTIME", "5.15", unix.EINVAL)
		require.Equal(t, unix.ETIME, errno(c))
	})
	t.Run("Multishot", func(t *testing.T) {
		testutil.Require(t, uring.CheckCapability(uring.CapMultishotTimeout)) // 6.4
		// Three expiries, F_MORE on all but the last.
		var ts4 sys.Timespec
		prep(t, r, 4, func(s *sys.SQE) error { return sqe.Timeout(s, &ts4, 2*time.Millisecond, 3, sys.TimeoutMultishot) })
		cs2 := submitWait(t, r, 3)
		for i, c := range cs2 {
			require.Equal(t, unix.ETIME, errno(c))
			require.Equal(t, i < 2, cqe.More(&c), "CQE %d", i)
		}
	})
	t.Run("Update", func(t *testing.T) {
		// Update a pending timeout to fire soon (IORING_TIMEOUT_UPDATE).
		var ts5, ts6 sys.Timespec
		prep(t, r, 5, func(s *sys.SQE) error { return sqe.Timeout(s, &ts5, time.Hour, 0, 0) })
		_, err := r.Submit()
		require.NoError(t, err)
		prep(t, r, 6, func(s *sys.SQE) error { return sqe.TimeoutUpdate(s, &ts6, time.Millisecond, 5, 0) })
		first := submitWait(t, r, 1)[0]
		if first.UserData == 6 && first.Res < 0 {
			prep(t, r, 15, func(s *sys.SQE) error { sqe.TimeoutRemove(s, 5); return nil }) // leave no timer behind
			require.Len(t, submitWait(t, r, 2), 2)
			kernelHas(t, first, "IORING_TIMEOUT_UPDATE", "5.11", unix.EINVAL)
		}
		cs := byUD(append(wait(t, r, 1), first))
		require.Equal(t, int32(0), cs[6].Res)
		require.Equal(t, unix.ETIME, errno(cs[5]))
	})
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
		sqe.SetLink(s)
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
		sqe.SetLink(s)
		return nil
	})
	prep(t, r, 4, func(s *sys.SQE) error { return sqe.LinkTimeout(s, &ts, time.Hour, 0) })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, int32(4), cs[3].Res)
	require.Equal(t, unix.ECANCELED, errno(cs[4]))

	// A head failing when issued (a recv on an unconnected TCP socket:
	// ENOTCONN, on every kernel; a failure at prep would cancel even a hard
	// link on kernels before 6.x) breaks a chain: followers get ECANCELED; a
	// hard link carries on.
	unconnected, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	closeLater(t, unconnected)
	failing := func(s *sys.SQE) error { return sqe.Recv(s, unconnected, buf, 0) }
	prep(t, r, 5, func(s *sys.SQE) error {
		if err := failing(s); err != nil {
			return err
		}
		sqe.SetLink(s)
		return nil
	})
	prep(t, r, 6, func(s *sys.SQE) error { sqe.Nop(s); sqe.SetLink(s); return nil })
	prep(t, r, 7, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	cs = byUD(submitWait(t, r, 3))
	require.Equal(t, unix.ENOTCONN, errno(cs[5]))
	require.Equal(t, unix.ECANCELED, errno(cs[6]))
	require.Equal(t, unix.ECANCELED, errno(cs[7]))
	prep(t, r, 8, func(s *sys.SQE) error {
		if err := failing(s); err != nil {
			return err
		}
		sqe.SetHardLink(s)
		return nil
	})
	prep(t, r, 9, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, unix.ENOTCONN, errno(cs[8]))
	require.Equal(t, int32(0), cs[9].Res)

	// Drain, Async.
	prep(t, r, 10, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	prep(t, r, 11, func(s *sys.SQE) error { sqe.Nop(s); sqe.SetDrain(s); sqe.SetAsync(s); return nil })
	cs2 := submitWait(t, r, 2)
	require.Equal(t, uint64(11), cs2[1].UserData, "drained: after what came before")

	t.Run("SkipSuccess", func(t *testing.T) {
		testutil.Require(t, uring.CheckFeature(sys.FeatCQESkip)) // 5.17
		// A skipped success posts nothing.
		prep(t, r, 10, func(s *sys.SQE) error { sqe.Nop(s); sqe.SetSkipSuccess(s); return nil })
		prep(t, r, 11, func(s *sys.SQE) error { sqe.Nop(s); return nil })
		cs2 := submitWait(t, r, 1)
		require.Equal(t, uint64(11), cs2[0].UserData)
		require.Zero(t, r.CQReady())
	})
	t.Run("LinkTimeoutUpdate", func(t *testing.T) {
		linkTimeoutUpdate(t, r, pr, buf)
	})
	runtime.KeepAlive(buf)
}

// linkTimeoutUpdate stretches a pending link timeout
// (IORING_LINK_TIMEOUT_UPDATE) of a read of the empty pipe pr.
func linkTimeoutUpdate(t *testing.T, r *uring.Ring, pr int, buf []byte) {
	var ts2, ts3 sys.Timespec
	prep(t, r, 12, func(s *sys.SQE) error {
		if err := sqe.Read(s, pr, buf, sqe.CurrentPos); err != nil {
			return err
		}
		sqe.SetLink(s)
		return nil
	})
	prep(t, r, 13, func(s *sys.SQE) error { return sqe.LinkTimeout(s, &ts2, time.Hour, 0) })
	_, err := r.Submit()
	require.NoError(t, err)
	prep(t, r, 14, func(s *sys.SQE) error { return sqe.LinkTimeoutUpdate(s, &ts3, time.Millisecond, 13, 0) })
	first := submitWait(t, r, 1)[0]
	if first.UserData == 14 && first.Res < 0 {
		prep(t, r, 15, func(s *sys.SQE) error { return sqe.Cancel(s, 12, 0) }) // leave nothing behind
		require.Len(t, submitWait(t, r, 3), 3)
		kernelHas(t, first, "IORING_LINK_TIMEOUT_UPDATE", "5.15", unix.EINVAL)
	}
	cs := byUD(append(wait(t, r, 2), first))
	require.Equal(t, int32(0), cs[14].Res)
	require.Equal(t, unix.ETIME, errno(cs[13]))
	require.Equal(t, unix.ECANCELED, errno(cs[12]))
	runtime.KeepAlive(buf)
}

func TestExecCancel(t *testing.T) {
	r := newRing(t)
	pr, _ := pipe(t)
	buf := make([]byte, 8)
	read := func(t *testing.T, ud uint64) {
		prep(t, r, ud, func(s *sys.SQE) error { return sqe.Read(s, pr, buf, sqe.CurrentPos) })
	}
	// cancelled submits the cancel prepared as user_data ud, meant to
	// complete with want and to cancel reads, and returns the CQEs by
	// user_data. When the cancel answers anything else (a kernel that
	// refuses its flag, or ignores it and matches by user_data), the reads
	// still in flight are cancelled by user_data first, so that nothing is
	// left behind, and only the cancel's CQE is returned.
	cancelled := func(t *testing.T, ud uint64, want int32, reads ...uint64) map[uint64]sys.CQE {
		t.Helper()
		_, err := r.Submit()
		require.NoError(t, err)
		got := map[uint64]sys.CQE{}
		for got[ud].UserData != ud {
			c := wait(t, r, 1)[0]
			got[c.UserData] = c
		}
		if got[ud].Res == want {
			for len(got) < len(reads)+1 {
				c := wait(t, r, 1)[0]
				got[c.UserData] = c
			}
			return got
		}
		var left []uint64
		for _, rd := range reads {
			if _, done := got[rd]; !done {
				left = append(left, rd)
				prep(t, r, 100+rd, func(s *sys.SQE) error { return sqe.Cancel(s, rd, 0) })
			}
		}
		require.Len(t, submitWait(t, r, 2*len(left)), 2*len(left))
		return map[uint64]sys.CQE{ud: got[ud]}
	}

	// By user_data (5.5); a second cancel finds nothing.
	read(t, 1)
	_, err := r.Submit()
	require.NoError(t, err)
	prep(t, r, 2, func(s *sys.SQE) error { return sqe.Cancel(s, 1, 0) })
	cs := byUD(submitWait(t, r, 2))
	require.Equal(t, unix.ECANCELED, errno(cs[1]))
	require.Equal(t, int32(0), cs[2].Res)
	c := run(t, r, func(s *sys.SQE) error { return sqe.Cancel(s, 1, 0) })
	require.Equal(t, unix.ENOENT, errno(c))

	t.Run("Op", func(t *testing.T) {
		// By opcode, all matches (IORING_ASYNC_CANCEL_OP).
		read(t, 3)
		read(t, 4)
		_, err := r.Submit()
		require.NoError(t, err)
		prep(t, r, 5, func(s *sys.SQE) error { return sqe.CancelOp(s, sys.OpRead, sys.AsyncCancelAll) })
		cs := cancelled(t, 5, 2, 3, 4)
		if cs[5].Res != 2 {
			kernelLacks(t, cs[5], "IORING_ASYNC_CANCEL_OP", "6.6")
		}
		require.Equal(t, unix.ECANCELED, errno(cs[3]))
		require.Equal(t, unix.ECANCELED, errno(cs[4]))
	})
	t.Run("Any", func(t *testing.T) {
		testutil.Require(t, uring.CheckCapability(uring.CapCancelFlags)) // 5.19
		read(t, 6)
		_, err := r.Submit()
		require.NoError(t, err)
		prep(t, r, 7, func(s *sys.SQE) error { sqe.CancelAny(s); return nil })
		cs := byUD(submitWait(t, r, 2))
		require.Equal(t, int32(1), cs[7].Res)
		require.Equal(t, unix.ECANCELED, errno(cs[6]))
	})
	t.Run("FixedFd", func(t *testing.T) {
		// By fixed file (IORING_ASYNC_CANCEL_FD_FIXED).
		registerFiles(t, r, []int32{int32(pr)})
		prep(t, r, 8, func(s *sys.SQE) error {
			if err := sqe.Read(s, 0, buf, sqe.CurrentPos); err != nil {
				return err
			}
			return sqe.SetSlot(s, 0)
		})
		_, err := r.Submit()
		require.NoError(t, err)
		prep(t, r, 9, func(s *sys.SQE) error { return sqe.CancelSlot(s, 0, 0) })
		cs := cancelled(t, 9, 0, 8)
		if cs[9].Res != 0 {
			kernelLacks(t, cs[9], "IORING_ASYNC_CANCEL_FD_FIXED", "6.0")
		}
		require.Equal(t, unix.ECANCELED, errno(cs[8]))
	})

	// EALREADY: an open of a FIFO blocks inside an io-wq worker, where it
	// can only be interrupted, not cancelled.
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, unix.Mkfifo(fifo, 0o600))
	path := cpath(t, fifo)
	prep(t, r, 10, func(s *sys.SQE) error {
		if err := sqe.Openat(s, unix.AT_FDCWD, path, unix.O_RDONLY, 0); err != nil {
			return err
		}
		sqe.SetAsync(s) // straight to io-wq, where the open blocks for a writer
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
	interrupted := got[10].Res < 0
	if interrupted {
		// Interrupted: EINTR, ECANCELED, or the kernel-internal ERESTARTSYS (512).
		require.Contains(t, []unix.Errno{unix.EINTR, unix.ECANCELED, 512}, errno(got[10]))
	} else {
		unix.Close(int(got[10].Res))
	}
	if errno(got[11]) == unix.ENOENT {
		// A cancel that finds its request running in io-wq interrupts it,
		// and the kernel's io_try_cancel (io_uring/cancel.c) does not stop
		// at that "running": it looks on (poll, timeouts), then once more
		// in every task's io-wq under the ring's lock; when the interrupted
		// open has completed by then, that look finds nothing: ENOENT,
		// though this cancel is what ended the open (seen here 6 times in 300 runs, the
		// open's -ERESTARTSYS 48 µs after the cancel's submission, the
		// cancel's CQE 0.8 ms later). Only an interrupted open makes
		// ENOENT the right answer.
		require.True(t, interrupted, "the cancel found nothing, yet the open was not interrupted: %+v", got[10])
	} else {
		require.Equal(t, unix.EALREADY, errno(got[11]), "cancel of a running io-wq request (the open's CQE: %+v; first: %+v)", got[10], first)
	}
	runtime.KeepAlive(buf)
}

func TestExecMsgRing(t *testing.T) {
	src := newRing(t)
	dst := newRing(t)
	needOp(t, sys.OpMsgRing) // 5.18
	require.Equal(t, 0, runOK(t, src, func(s *sys.SQE) error { return sqe.MsgRing(s, dst.Fd(), 77, 0xabc) }))
	c := wait(t, dst, 1)[0]
	require.Equal(t, uint64(0xabc), c.UserData)
	require.Equal(t, int32(77), c.Res)

	t.Run("CQEFlags", func(t *testing.T) {
		c := run(t, src, func(s *sys.SQE) error { return sqe.MsgRingCQEFlags(s, dst.Fd(), -5, 0xdef, 0x10000) })
		kernelHas(t, c, "IORING_MSG_RING_FLAGS_PASS", "6.3", unix.EINVAL)
		require.Equal(t, int32(0), c.Res, "errno %v", errno(c))
		c = wait(t, dst, 1)[0]
		require.Equal(t, uint64(0xdef), c.UserData)
		require.Equal(t, int32(-5), c.Res)
		require.Equal(t, sys.CQEFlags(0x10000), c.Flags, "flags passed through")

		// SkipSuccess: the MSG_RING completes during the submit, posting
		// nothing on the sender.
		prep(t, src, 1, func(s *sys.SQE) error {
			if err := sqe.MsgRingCQEFlags(s, dst.Fd(), -6, 0xdef, 0x10000); err != nil {
				return err
			}
			sqe.SetSkipSuccess(s)
			return nil
		})
		_, err := src.Submit()
		require.NoError(t, err)
		c = wait(t, dst, 1)[0]
		require.Equal(t, int32(-6), c.Res)
		require.Zero(t, src.CQReady(), "SkipSuccess: no CQE on the sender")
	})
	t.Run("Fd", func(t *testing.T) {
		// Pass a registered file from slot 0 of src to slot 1 of dst
		// (IORING_MSG_SEND_FD).
		f, _ := tempFile(t, []byte("passed"))
		registerFiles(t, src, []int32{int32(f.Fd())})
		registerFiles(t, dst, []int32{-1, -1})
		c := run(t, src, func(s *sys.SQE) error { return sqe.MsgRingFd(s, dst.Fd(), 0, 1, 0x55, 0) })
		kernelHas(t, c, "IORING_MSG_SEND_FD", "6.0", unix.EINVAL)
		require.Equal(t, int32(0), c.Res, "errno %v", errno(c))
		c = wait(t, dst, 1)[0]
		require.Equal(t, uint64(0x55), c.UserData)
		require.Equal(t, int32(0), c.Res)
		buf := make([]byte, 16)
		n := runOK(t, dst, func(s *sys.SQE) error {
			if err := sqe.Read(s, 0, buf, 0); err != nil {
				return err
			}
			return sqe.SetSlot(s, 1)
		})
		require.Equal(t, "passed", string(buf[:n]))

		// With MsgRingCQESkip the target gets the file but no CQE.
		c = run(t, src, func(s *sys.SQE) error { return sqe.MsgRingFd(s, dst.Fd(), 0, 0, 0x56, sys.MsgRingCQESkip) })
		kernelHas(t, c, "IORING_MSG_RING_CQE_SKIP", "6.3", unix.EINVAL)
		require.Equal(t, int32(0), c.Res, "errno %v", errno(c))
		n = runOK(t, dst, func(s *sys.SQE) error {
			if err := sqe.Read(s, 0, buf, 0); err != nil {
				return err
			}
			return sqe.SetSlot(s, 0)
		})
		require.Equal(t, "passed", string(buf[:n]))
		require.Zero(t, dst.CQReady())
	})
}

func TestExecFutex(t *testing.T) {
	r := newRing(t)
	needOp(t, sys.OpFutexWaitv) // 6.7
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
	needOp(t, sys.OpWaitid) // 6.7
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
