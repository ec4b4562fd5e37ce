//go:build linux

package fdinfo

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// contend keeps r's uring_lock busy: registering a table of many
// buffers pins their pages under the lock, slot by slot, and
// unregistering unpins them. (IORING_REGISTER_BUFFERS is in every kernel,
// needs no RLIMIT_NOFILE headroom, and as root no RLIMIT_MEMLOCK.) It
// fails the test if the registration itself fails: no contention would
// make the tests below vacuous.
func contend(t *testing.T, r *testRing) {
	// The contender must hold the lock while the test reads: that takes two
	// threads running at once, also under GOMAXPROCS=1.
	if runtime.GOMAXPROCS(0) < 2 {
		prev := runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
	const n, size = 512, 64 << 10 // 32 MiB in 512 slots
	mem, err := sys.MmapAnon(n*size, false)
	require.NoError(t, err)
	iov := make([]unix.Iovec, n)
	for i := range iov {
		iov[i].Base = &mem[i*size]
		iov[i].SetLen(size)
	}
	// Both calls may wait for the ring to quiesce before 6.13, and a
	// signal of Go's own (preemption) interrupts that wait: EINTR, retry.
	_, err = eintr(func() (int, error) { return sys.RegisterSlice(r.fd, sys.RegisterBuffers, iov) })
	require.NoError(t, err, "the contender's registration")
	_, err = eintr(func() (int, error) { return sys.Register[byte](r.fd, sys.UnregisterBuffers, nil, 0) })
	require.NoError(t, err)
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			_, _ = sys.RegisterSlice(r.fd, sys.RegisterBuffers, iov)
			_, _ = sys.Register[byte](r.fd, sys.UnregisterBuffers, nil, 0)
		}
	}()
	t.Cleanup(func() {
		stop.Store(true)
		<-done
		runtime.KeepAlive(iov)
		_ = sys.Munmap(mem)
	})
}

// eintr calls f again while it fails with EINTR.
func eintr(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// lockedParts is what a read that lost the race for the ring's lock
// leaves out: from 6.15 the whole ring section, before it the lists (here
// the buffer table the contender fills, once it has a slot).
func lockedParts(t *testing.T) []Part {
	if PartialLockKernel(kernelRelease(t)) {
		return []Part{PartBuffers}
	}
	return []Part{PartRing}
}

// TestLockedReadIsDetected reads fdinfo while another thread holds the
// ring's lock most of the time: the kernel leaves out what it prints only
// under the lock, and Parse must say so (and nothing else).
func TestLockedReadIsDetected(t *testing.T) {
	r := newTestRing(t, 4, sys.Params{})
	contend(t, r)
	partial := PartialLockKernel(kernelRelease(t))
	want := lockedParts(t)
	path := fmt.Sprintf("/proc/self/fdinfo/%d", r.fd)
	deadline := time.Now().Add(5 * time.Second) // a loaded machine may run the contender seldom
	complete, locked := 0, 0
	for time.Now().Before(deadline) && (complete == 0 || locked == 0) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		i := ParseWith(b, Options{PartialLock: partial})
		require.Empty(t, i.Unknown)
		require.True(t, i.Has("pos") && i.Has("flags"), "the generic lines are printed anyway")
		if len(i.Unavailable) > 0 {
			locked++
			require.Equal(t, want, i.Unavailable)
			if partial {
				require.True(t, i.Has("UserBufs"), "the counters are printed without the lock")
				require.NotZero(t, i.UserBufs)
				require.Empty(t, i.Bufs)
			}
			continue
		}
		complete++
		if i.Has("SqMask") {
			require.EqualValues(t, 4, i.SQEntries())
		}
		require.Len(t, i.Bufs, int(i.UserBufs), "a locked print lists every buffer")
	}
	require.NotZero(t, locked, "no read found the lock taken in 5s")
	require.NotZero(t, complete, "no read got the lock in 5s")
}

// TestScanRetriesUnderContention checks that Scan reads again when the lock
// was busy, and reports the gap only after every retry failed.
func TestScanRetriesUnderContention(t *testing.T) {
	r := newTestRing(t, 4, sys.Params{})
	contend(t, r)
	want := lockedParts(t)
	opt := ScanOptions{Retries: 3, RetryDelay: 100 * time.Microsecond}
	retried, scans := 0, 0
	// Until one scan retried: a loaded machine may run the contender seldom.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && retried == 0; scans++ {
		res, err := Scan([]int{os.Getpid()}, opt)
		require.NoError(t, err)
		var in *Instance
		for k := range res.Instances {
			if res.Instances[k].FD == r.fd {
				in = &res.Instances[k]
			}
		}
		require.NotNil(t, in)
		if len(in.Info.Unavailable) > 0 {
			require.Equal(t, want, in.Info.Unavailable)
			require.Equal(t, 4, in.Attempts, "gave up before the retries ran out")
		} else {
			require.Len(t, in.Info.Bufs, int(in.Info.UserBufs))
		}
		if in.Attempts > 1 {
			retried++
		}
	}
	require.NotZero(t, retried, "no scan needed a retry in %d scans (5s) under contention", scans)
}

func kernelRelease(t *testing.T) string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	require.NoError(t, err)
	return string(b)
}
