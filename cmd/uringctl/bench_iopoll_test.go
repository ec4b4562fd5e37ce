//go:build linux

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
)

// polledBenchDevice names a block device that completes polled I/O:
// $URING_TEST_POLLED_DEV (kernel-test's null_blk or emulated NVMe), else the
// first one uring.PolledBlockDevices finds (the bench only reads it). It
// skips with the probe's reasons when there is none.
func polledBenchDevice(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("URING_TEST_POLLED_DEV"); p != "" {
		return p
	}
	devs, err := uring.PolledBlockDevices()
	require.NoError(t, err)
	var why []string
	for _, d := range devs {
		if d.Polled {
			return "/dev/" + d.Name
		}
		why = append(why, d.Name+": "+d.Reason)
	}
	t.Skipf("no block device completes polled I/O (URING_TEST_POLLED_DEV unset; uring.PolledBlockDevices: %s)", strings.Join(why, "; "))
	return ""
}

// TestBenchRandreadIOPollDevice: `uringctl bench randread --mode iopoll
// --file DEV` on a polled block device reads it (never writes it) through
// an IOPOLL executor and reports a number for the project and for its Go
// baseline at each queue depth. The iopoll mode is fixed plus IOPOLL: where
// registered files and buffers (IORING_REGISTER_FILES2/BUFFERS2, 5.13) are
// missing, the points must say so, and the test skips through that probe.
func TestBenchRandreadIOPollDevice(t *testing.T) {
	dev := polledBenchDevice(t)
	code, out, errOut := benchRun("randread", "--mode", "iopoll", "--file", dev, "--size", "64M",
		"--duration", "100ms", "--qd", "1,4", "--reps", "1", "--json")
	t.Logf("uringctl bench randread --mode iopoll --file %s:\n%s%s", dev, out, errOut)
	require.Equal(t, 0, code, errOut)
	pts := decodePoints(t, out)
	require.Len(t, pts, 2)
	regErr := uring.CheckRegisterOp(sys.RegisterFiles2)
	if regErr == nil {
		regErr = uring.CheckRegisterOp(sys.RegisterBuffers2)
	}
	for i, qd := range []int{1, 4} {
		p := pts[i]
		require.Equal(t, "randread", p.Workload)
		require.Equal(t, "iopoll", p.Mode)
		require.Equal(t, int64(qd), p.X)
		require.Equal(t, qd, p.Params.QD)
		require.Equal(t, int64(64<<20), p.Params.FileSize)
		require.Equal(t, dev, p.Params.File)
		if regErr != nil && p.Unsupported != "" {
			require.Contains(t, p.Unsupported, "5.13", "the point names the release registered files and buffers need")
			continue
		}
		require.Empty(t, p.Unsupported, "the device polls: iopoll must run")
		require.Positive(t, p.Value, "%+v", p)
		require.Positive(t, p.BaselineValue, "%+v", p)
		require.Positive(t, p.Ratio, "%+v", p)
	}
	testutil.Require(t, regErr)
}

// TestBenchRandreadPolledDeviceSize: --size larger than the block device
// is refused, naming both sizes, and nothing is written to it.
func TestBenchRandreadPolledDeviceSize(t *testing.T) {
	dev := polledBenchDevice(t)
	code, out, errOut := benchRun("randread", "--mode", "direct", "--file", dev, "--size", "1024G",
		"--duration", "10ms", "--qd", "1", "--reps", "1", "--json", "--no-peers")
	require.Equal(t, 1, code, errOut)
	require.Empty(t, out)
	require.Contains(t, errOut, "--size 1024G exceeds the block device "+dev)
}
