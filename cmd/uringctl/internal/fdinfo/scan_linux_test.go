//go:build linux

package fdinfo

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func findFD(t *testing.T, res *Result, fd int) Instance {
	t.Helper()
	for _, in := range res.Instances {
		if in.PID == os.Getpid() && in.FD == fd {
			return in
		}
	}
	t.Fatalf("ring fd %d of pid %d not found in %d instances", fd, os.Getpid(), len(res.Instances))
	return Instance{}
}

func TestScanOwnRing(t *testing.T) {
	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_CLOEXEC))
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	r := newTestRing(t, 32, sys.Params{Flags: sys.SetupCQSize, CQEntries: 128})
	r.registerFiles(t, []int32{int32(p[0]), int32(p[1]), -1, -1})
	r.registerBuffers(t, 3, 4096)
	r.queue(t, 2, sys.OpNop, -1, 1)
	r.submit(t, 2, 2)
	r.queue(t, 5, sys.OpNop, -1, 2)

	raw, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", r.fd))
	require.NoError(t, err)
	t.Logf("kernel %s prints:\n%s", strings.TrimSpace(kernelRelease(t)), raw) // a sample of each kernel's format

	res, err := Scan([]int{os.Getpid()}, ScanOptions{})
	require.NoError(t, err)
	require.Empty(t, res.Errors)
	in := findFD(t, res, r.fd)
	require.NotEmpty(t, in.Comm)
	i := in.Info
	require.Empty(t, i.Unavailable)
	require.Empty(t, i.Unknown)
	if printsQueues(t) {
		require.EqualValues(t, 32, i.SQEntries())
		require.EqualValues(t, 128, i.CQEntries())
		require.EqualValues(t, 2, i.SQHead)
		require.EqualValues(t, 7, i.SQTail)
		require.EqualValues(t, 5, i.SQEs)
		require.Len(t, i.SQEList, 5)
		require.EqualValues(t, 2, i.CQEs)
	} else {
		require.False(t, i.Has("SqMask"), "this kernel prints no queue state")
		require.Zero(t, i.SQEntries(), "unknown")
	}
	require.EqualValues(t, 4, i.UserFiles)
	if atLeast(t, "6.13") {
		// Only occupied slots, by path.
		require.Len(t, i.Files, 2)
		for k, f := range i.Files {
			require.EqualValues(t, k, f.Index)
			require.False(t, f.Empty)
			require.True(t, strings.HasPrefix(f.Name, "pipe:["), f.Name)
		}
	} else {
		// Every slot: a pipe's dentry name is empty, a free slot <none>.
		require.Len(t, i.Files, 4)
		for k, f := range i.Files {
			require.EqualValues(t, k, f.Index)
			require.Equal(t, k >= 2, f.Empty, "slot %d", k)
		}
	}
	require.EqualValues(t, 3, i.UserBufs)
	require.Len(t, i.Bufs, 3)
	for k, b := range i.Bufs {
		require.EqualValues(t, k, b.Index)
		require.EqualValues(t, 4096, b.Len)
		require.False(t, b.Empty)
	}
	require.Equal(t, -1, i.SQThread)
	require.Nil(t, in.SQThread)
	require.Equal(t, 1, in.Attempts)
}

// queuesSince is the release whose fdinfo added the SQ and CQ state
// (SqMask, heads, tails, the pending SQEs and CQEs: "io_uring: add more
// uring info to fdinfo for debug", 5.16).
const queuesSince = "5.16"

// printsQueues reports whether the kernel prints the SQ and CQ state,
// which 5.10 (and its io_uring backport from 5.15) does not.
func printsQueues(t *testing.T) bool { return atLeast(t, queuesSince) }

// atLeast reports whether the running kernel is release or newer.
func atLeast(t *testing.T, release string) bool {
	t.Helper()
	ok, err := uring.KernelAtLeast(release)
	require.NoError(t, err)
	return ok
}

func TestScanAllFindsOwnRing(t *testing.T) {
	r := newTestRing(t, 4, sys.Params{})
	res, err := Scan(nil, ScanOptions{})
	require.NoError(t, err)
	i := findFD(t, res, r.fd).Info
	if printsQueues(t) {
		require.EqualValues(t, 4, i.SQEntries())
	} else {
		require.True(t, i.Has("UserFiles"))
	}
}

func TestScanSQPollThread(t *testing.T) {
	r := newTestRing(t, 4, sys.Params{Flags: sys.SetupSQPoll, SQThreadIdle: 50})
	// The SQ thread names itself iou-sqp-PID once it first runs: on a busy
	// machine (or GOMAXPROCS=1) give it a moment.
	var in Instance
	for deadline := time.Now().Add(2 * time.Second); ; {
		res, err := Scan([]int{os.Getpid()}, ScanOptions{})
		require.NoError(t, err)
		in = findFD(t, res, r.fd)
		if in.SQThread != nil && strings.Contains(in.SQThread.Comm, "iou-sqp") || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.Greater(t, in.Info.SQThread, 0)
	require.NotNil(t, in.SQThread, "stat of SQPOLL thread %d", in.Info.SQThread)
	require.Equal(t, in.Info.SQThread, in.SQThread.TID)
	require.Contains(t, in.SQThread.Comm, "iou-sqp")
}

func TestScanMissingPID(t *testing.T) {
	res, err := Scan([]int{1 << 30}, ScanOptions{})
	require.NoError(t, err)
	require.Len(t, res.Errors, 1)
	require.True(t, errors.Is(res.Errors[0], os.ErrNotExist), res.Errors[0])
	require.Empty(t, res.Instances)
}

func TestRetryUntilLockTaken(t *testing.T) {
	locked, full := sample(t, "locked.txt"), sample(t, "empty.txt")
	opt := ScanOptions{RetryDelay: time.Microsecond}.withDefaults()
	reads := [][]byte{locked, locked, full}
	n := 0
	info, attempts, err := retry(func() ([]byte, error) { n++; return reads[n-1], nil }, opt, false)
	require.NoError(t, err)
	require.Equal(t, 3, attempts)
	require.Empty(t, info.Unavailable)
	require.EqualValues(t, 8, info.SQEntries())

	// Always locked: gives up after 1+Retries reads and says what is missing.
	info, attempts, err = retry(func() ([]byte, error) { return locked, nil }, opt, false)
	require.NoError(t, err)
	require.Equal(t, 1+opt.Retries, attempts)
	require.Equal(t, []Part{PartRing}, info.Unavailable)

	// A read error after a partial read keeps the partial one.
	n = 0
	info, _, err = retry(func() ([]byte, error) {
		n++
		if n == 1 {
			return locked, nil
		}
		return nil, os.ErrNotExist
	}, opt, false)
	require.NoError(t, err)
	require.True(t, info.Missing(PartRing))

	_, _, err = retry(func() ([]byte, error) { return nil, os.ErrNotExist }, opt, false)
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestPartialLockKernel(t *testing.T) {
	for rel, want := range map[string]bool{
		"6.18.44-fc-v782\n": false, "6.15.0": false, "6.14.11-300.fc42.x86_64": true,
		"5.15.0-122-generic": true, "7.0": false, "garbage": false, "6": false,
	} {
		require.Equal(t, want, PartialLockKernel(rel), rel)
	}
}
