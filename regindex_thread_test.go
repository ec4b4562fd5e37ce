//go:build linux

package uring_test

import (
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// lockedThread runs functions on one OS thread: a goroutine locked to it
// until the test ends.
type lockedThread struct {
	fns  chan func()
	done chan struct{}
}

func startLockedThread(t *testing.T) *lockedThread {
	lt := &lockedThread{fns: make(chan func()), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(lt.done)
		for f := range lt.fns {
			f()
		}
	}()
	t.Cleanup(func() {
		close(lt.fns)
		<-lt.done
	})
	return lt
}

// do runs f on the thread and returns when it did.
func (lt *lockedThread) do(f func()) {
	done := make(chan struct{})
	lt.fns <- func() {
		defer close(done)
		f()
	}
	<-done
}

// ringSlots registers dfd (a ring fd) in the calling thread's table of
// registered rings until index want comes up (the kernel hands out the
// lowest free one), and frees want again: the next registration on this
// thread gets want. It returns the indices it filled below want, to free
// with freeRingSlots once that registration is made. want < 0 fills the
// whole table and frees it all, returning the indices that were free.
func ringSlots(dfd, want int) ([]int, error) {
	var filled []int
	for len(filled) < 16 {
		upd := sys.RsrcUpdate{Offset: ^uint32(0), Data: uint64(dfd)}
		if _, err := sys.Register(dfd, sys.RegisterRingFds, &upd, 1); err != nil {
			if want < 0 && errors.Is(err, unix.EBUSY) {
				break // the table is full
			}
			return filled, err
		}
		i := int(upd.Offset)
		if i == want {
			return filled, freeRingSlots(dfd, []int{i})
		}
		filled = append(filled, i)
		if want >= 0 && i > want {
			return filled, errors.New("the wanted index is taken on this thread")
		}
	}
	return filled, freeRingSlots(dfd, filled)
}

func freeRingSlots(dfd int, idx []int) error {
	for _, i := range idx {
		if _, err := sys.Register(dfd, sys.UnregisterRingFds, &sys.RsrcUpdate{Offset: uint32(i)}, 1); err != nil {
			return err
		}
	}
	return nil
}

// TestRegisteredIndexOffThreadEntersNoOtherRing is the audit's case: T1
// owns ring A and T2 ring B, both entered through the same registered
// index, which names A in T1's table and B in T2's. Every call that enters
// A from T2 must fail with ErrNotIssuer before the kernel sees the index:
// entered through it, it submitted (and waited on) B, and A.Submit
// returned 1 for B's NOP. So must UseTarget where the index is A's only
// way in (WithRegisteredFdOnly, after CloseRingFd); where A still has its
// fd, register calls take the fd from any thread. Afterwards B's NOP and
// A's are each still queued, and each owner submits its own.
func TestRegisteredIndexOffThreadEntersNoOtherRing(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterRingFds))
	kinds := []struct {
		name  string
		opts  []uring.Option
		hasFd bool // A keeps its fd
		check error
		after func(*uring.Ring) error // on T1, once A is made
	}{
		{name: "WithRegisteredRingFd", opts: []uring.Option{uring.WithRegisteredRingFd()}, hasFd: true},
		{name: "WithRegisteredFdOnly", opts: []uring.Option{uring.WithNoMmap(), uring.WithRegisteredFdOnly()},
			check: uring.CheckSetupFlag(sys.SetupRegisteredFdOnly)},
		{name: "CloseRingFd", opts: []uring.Option{uring.WithRegisteredRingFd()},
			check: uring.CheckFeature(sys.FeatRegRegRing), after: (*uring.Ring).CloseRingFd},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			testutil.Require(t, k.check)
			runtime.LockOSThread() // this goroutine's thread is T2, B's owner
			defer runtime.UnlockOSThread()
			t1 := startLockedThread(t)
			var tid1 int
			t1.do(func() { tid1 = unix.Gettid() })
			require.NotEqual(t, tid1, unix.Gettid(), "T1 and T2 are one thread")

			// An index free on both threads, the lowest: 0 on fresh threads.
			dummy, err := uring.New(2)
			require.NoError(t, err)
			defer dummy.Close()
			var free1 []int
			var slotErr error
			t1.do(func() { free1, slotErr = ringSlots(dummy.Fd(), -1) })
			require.NoError(t, slotErr)
			free2, err := ringSlots(dummy.Fd(), -1)
			require.NoError(t, err)
			idx := -1
			for _, i := range free2 { // lowest first
				if idx < 0 && slices.Contains(free1, i) {
					idx = i
				}
			}
			require.GreaterOrEqual(t, idx, 0, "no index free on both threads (%v, %v)", free1, free2)

			// T1 makes A at idx.
			var a *uring.Ring
			var newErr, afterErr error
			t1.do(func() {
				var pads []int
				if pads, slotErr = ringSlots(dummy.Fd(), idx); slotErr != nil {
					return
				}
				a, newErr = uring.New(8, k.opts...)
				slotErr = freeRingSlots(dummy.Fd(), pads)
				if newErr == nil && k.after != nil {
					afterErr = k.after(a)
				}
			})
			require.NoError(t, slotErr)
			require.NoError(t, newErr)
			require.NoError(t, afterErr)
			defer t1.do(func() { a.Close() }) // on T1: drops its index

			// T2 makes B at idx, and queues a NOP on it.
			pads, err := ringSlots(dummy.Fd(), idx)
			require.NoError(t, err)
			b, err := uring.New(8, uring.WithRegisteredRingFd())
			require.NoError(t, err)
			defer b.Close()
			require.NoError(t, freeRingSlots(dummy.Fd(), pads))
			require.Equal(t, idx, uring.EnterFd(a), "A's registered index")
			require.Equal(t, idx, uring.EnterFd(b), "B's registered index")
			nop(t, b, 0xB)
			require.Equal(t, uint32(1), b.Publish())

			// From T2, A's own NOP and every way to enter A.
			nop(t, a, 0xA)
			bUntouched := func(call string) {
				t.Helper()
				require.Equal(t, uint32(1), b.SQReady(), "%s on A from T2 submitted B's NOP", call)
				require.Zero(t, b.CQReady(), "%s on A from T2 completed B's NOP", call)
				require.Equal(t, uint32(1), a.SQReady(), "%s on A from T2: A's NOP", call)
				require.Zero(t, a.CQReady(), "%s on A from T2", call)
			}
			n, err := a.Submit()
			bUntouched("Submit")
			require.ErrorIs(t, err, uring.ErrNotIssuer, "Submit")
			require.ErrorIs(t, err, unix.EEXIST)
			require.Zero(t, n)
			n, err = a.SubmitAndWait(1)
			require.ErrorIs(t, err, uring.ErrNotIssuer, "SubmitAndWait")
			require.Zero(t, n)
			bUntouched("SubmitAndWait")
			n, err = a.EnterWait(a.Publish(), 0)
			require.ErrorIs(t, err, uring.ErrNotIssuer, "EnterWait")
			require.Zero(t, n)
			bUntouched("EnterWait")
			_, err = a.WaitCQETimeout(time.Millisecond)
			require.ErrorIs(t, err, uring.ErrNotIssuer, "WaitCQETimeout")
			bUntouched("WaitCQETimeout")
			_, err = a.WaitCQE() // through the index: a wait on B, for ever
			require.ErrorIs(t, err, uring.ErrNotIssuer, "WaitCQE")
			bUntouched("WaitCQE")
			_, err = a.WaitCQEsSigmask(1, time.Millisecond, 0)
			require.ErrorIs(t, err, uring.ErrNotIssuer, "WaitCQEsSigmask")
			bUntouched("WaitCQEsSigmask")
			_, err = a.SubmitAndWaitReg(1, 0)
			require.ErrorIs(t, err, uring.ErrNotIssuer, "SubmitAndWaitReg")
			bUntouched("SubmitAndWaitReg")

			// fn asserts nothing itself: a failure inside it would leave
			// UseTarget's reference held, and A's Close waiting for ever.
			called, gotFd, gotFlag := false, -1, sys.RegisterOp(0)
			err = a.UseTarget(func(fd int, flag sys.RegisterOp) error {
				called, gotFd, gotFlag = true, fd, flag
				if flag != 0 {
					return nil // the index: on this thread, B's
				}
				_, err := registerPersonality(fd, flag)
				return err
			})
			if k.hasFd {
				require.NoError(t, err, "UseTarget through the fd, from any thread")
				require.True(t, called)
				require.Equal(t, a.Fd(), gotFd)
				require.Zero(t, gotFlag)
			} else {
				require.False(t, called, "fn got the index %d (flag %#x) off its thread", gotFd, uint32(gotFlag))
				require.ErrorIs(t, err, uring.ErrNotIssuer, "UseTarget with only the index")
			}
			bUntouched("UseTarget")

			// Each owner submits its own NOP, which is still there.
			n, err = b.SubmitAndWait(1)
			require.NoError(t, err)
			require.Equal(t, 1, n)
			require.Equal(t, uint64(0xB), reapAll(t, b, 1)[0].UserData)
			require.Zero(t, b.CQReady())
			var cqes []sys.CQE
			t1.do(func() {
				if n, err = a.SubmitAndWait(1); err == nil {
					cqes = make([]sys.CQE, 4)
					cqes = cqes[:a.Reap(cqes)]
				}
			})
			require.NoError(t, err)
			require.Equal(t, 1, n)
			require.Len(t, cqes, 1)
			require.Equal(t, uint64(0xA), cqes[0].UserData)
		})
	}
}
