//go:build linux

package fdinfo

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

// contend keeps r's uring_lock busy: registering and unregistering a large
// sparse file table takes the lock for a while each time.
func contend(t *testing.T, r *testRing) {
	// The contender must hold the lock while the test reads: that takes two
	// threads running at once, also under GOMAXPROCS=1.
	if runtime.GOMAXPROCS(0) < 2 {
		prev := runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			reg := sys.RsrcRegister{Nr: 200000, Flags: 1} // IORING_RSRC_REGISTER_SPARSE
			_, _ = sys.Register(r.fd, sys.RegisterFiles2, &reg, uint32(sys.SizeOf[sys.RsrcRegister]()))
			_, _ = sys.Register[byte](r.fd, sys.UnregisterFiles, nil, 0)
		}
	}()
	t.Cleanup(func() { stop.Store(true); <-done })
}

// TestLockedReadIsDetected reads fdinfo while another thread holds the
// ring's lock most of the time: the kernel prints no ring section then, and
// Parse must say so.
func TestLockedReadIsDetected(t *testing.T) {
	if PartialLockKernel(kernelRelease(t)) {
		t.Skipf("kernel %s prints the ring without its lock", kernelRelease(t))
	}
	r := newTestRing(t, 4, sys.Params{})
	contend(t, r)
	path := fmt.Sprintf("/proc/self/fdinfo/%d", r.fd)
	deadline := time.Now().Add(5 * time.Second) // a loaded machine may run the contender seldom
	complete, locked := 0, 0
	for time.Now().Before(deadline) && (complete == 0 || locked == 0) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		i := Parse(b)
		if i.Missing(PartRing) {
			locked++
			require.Equal(t, []Part{PartRing}, i.Unavailable)
			require.NotZero(t, i.Ino, "the generic lines are printed anyway")
			require.Empty(t, i.Unknown)
			continue
		}
		complete++
		require.Empty(t, i.Unavailable)
		require.EqualValues(t, 4, i.SQEntries())
	}
	require.NotZero(t, locked, "no read found the lock taken in 5s")
	require.NotZero(t, complete, "no read got the lock in 5s")
}

// TestScanRetriesUnderContention checks that Scan reads again when the lock
// was busy, and reports the gap only after every retry failed.
func TestScanRetriesUnderContention(t *testing.T) {
	if PartialLockKernel(kernelRelease(t)) {
		t.Skipf("kernel %s prints the ring without its lock", kernelRelease(t))
	}
	r := newTestRing(t, 4, sys.Params{})
	contend(t, r)
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
		if in.Info.Missing(PartRing) {
			require.Equal(t, 4, in.Attempts, "gave up before the retries ran out")
		} else {
			require.EqualValues(t, 4, in.Info.SQEntries())
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
