//go:build linux

package poll

import (
	"errors"
	"os"
	"time"

	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sys"
)

// efdOne is the 8-byte counter increment a waker writes to the eventfd.
var efdOne = []byte{1, 0, 0, 0, 0, 0, 0, 0}

// startPark creates the eventfd, registers it with the ring and keeps its
// notifications off (IORING_CQ_EVENTFD_DISABLED) until the loop parks.
func (l *Loop) startPark() error {
	f, fd, err := sys.Eventfd("poll-eventfd")
	if err != nil {
		return err
	}
	if err := reg.RegisterEventfd(l.ring, fd, false); err != nil {
		_ = f.Close()
		return err
	}
	l.efd = f
	l.ring.SetEventfdEnabled(false)
	return nil
}

// waitPark is Park's wait: it parks the loop goroutine in Go's netpoller
// on the eventfd (its thread sleeps, its P runs other goroutines) until a
// completion, a wakeup or the timeout. The order avoids a lost wakeup:
//
//  1. sleeping = sleepEfd, then hasWork/stop are checked (enqueue stores
//     hasWork, then reads sleeping: one side sees the other);
//  2. notifications on, then a non-blocking GETEVENTS enter runs deferred
//     task work and the CQ is checked: completion work queued before the
//     store was run by the enter (its signal may have been suppressed, and
//     with DEFER_TASKRUN the kernel signals only on the first item of an
//     empty work list); work queued after the enter finds the list empty
//     and the notifications on, so it signals;
//  3. only then the eventfd read blocks.
func (l *Loop) waitPark() {
	if checkThread {
		l.assertThread()
	}
	l.sleeping.Store(sleepEfd)
	if l.hasWork.Load() != 0 || (l.stop.Load() && !l.closing) {
		l.setAwake()
		return
	}
	r := l.ring
	r.SetEventfdEnabled(true) // full barrier before the enter's list check
	l.st.Enters++
	if err := r.FlushOverflow(); err != nil { // GETEVENTS, min_complete 0
		r.SetEventfdEnabled(false)
		l.setAwake()
		l.enterErr(err)
		return
	}
	if r.CQReady() == 0 {
		timeout := l.cfg.WaitTimeout
		if l.closing {
			timeout = min(timeout, recancelEvery)
		}
		t0 := time.Now()
		err := l.efd.SetReadDeadline(t0.Add(timeout))
		if err == nil {
			_, err = l.efd.Read(l.efdBuf[:])
		}
		l.st.BlockNanos += int64(time.Since(t0))
		l.st.Waits++
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) && l.fatal == nil {
			l.fatal = err
			l.beginClose()
		}
	}
	r.SetEventfdEnabled(false)
	l.setAwake()
}

// kickEfd wakes a loop parked on its eventfd (any goroutine). The File
// refuses writes once closed, so a late waker never hits a reused fd.
func (l *Loop) kickEfd() {
	l.kicks.Add(1)
	_, _ = l.efd.Write(efdOne)
}
