//go:build linux

package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// inspectFileName is the regular file registered in slot 2 of the test
// ring.
const inspectFileName = "inspected-file"

// inspectTestRing is a 32/128 ring of this process with 3 registered
// files: a pipe's two ends and a regular file.
func inspectTestRing(t *testing.T, opts ...uring.Option) *uring.Ring {
	t.Helper()
	r, err := uring.New(32, append([]uring.Option{uring.WithCQSize(128)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_CLOEXEC))
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	f, err := os.Create(filepath.Join(t.TempDir(), inspectFileName))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	_, err = sys.RegisterSlice(r.Fd(), sys.RegisterFiles, []int32{int32(p[0]), int32(p[1]), int32(f.Fd())})
	require.NoError(t, err)
	return r
}

// kernelPrints reports which optional parts this kernel prints in the
// fdinfo of ring fd: the ring indices (SqMask and the rest, 5.17) and the
// NAPI state (6.9). What inspect shows must follow the kernel's own file.
func kernelPrints(t *testing.T, fd int) (indices, napi bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	require.NoError(t, err)
	return strings.Contains(string(b), "\nSqMask:"), strings.Contains(string(b), "\nNAPI:")
}

func inspectJSON(t *testing.T, args ...string) []inspectReport {
	t.Helper()
	code, out, errOut := inspectRun(append([]string{"inspect", "--json"}, args...)...)
	require.Equal(t, 0, code, errOut)
	var reps []inspectReport
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rep inspectReport
		require.NoError(t, json.Unmarshal([]byte(line), &rep), line)
		reps = append(reps, rep)
	}
	return reps
}

func findRing(t *testing.T, rep inspectReport, fd int) inspectRing {
	t.Helper()
	for _, r := range rep.Rings {
		if r.PID == os.Getpid() && r.FD == fd {
			return r
		}
	}
	t.Fatalf("ring fd %d of pid %d not in %+v", fd, os.Getpid(), rep.Rings)
	return inspectRing{}
}

func TestInspectTableFindsOwnRing(t *testing.T) {
	r := inspectTestRing(t)
	code, out, errOut := inspectRun("inspect", strconv.Itoa(os.Getpid()))
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	t.Logf("\n%s", out)
	lines := strings.Split(out, "\n")
	require.Contains(t, lines[1], "PID")
	var row []string
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		if len(f) > 2 && f[0] == strconv.Itoa(os.Getpid()) && f[2] == strconv.Itoa(r.Fd()) {
			row = f
		}
	}
	require.NotNil(t, row, "no row for fd %d", r.Fd())
	// PID COMM FD SQ HEAD TAIL CACHED PEND CQ HEAD TAIL CACHED PEND OVFL FILES BUFS POLL SQPOLL NAPI
	indices, napi := kernelPrints(t, r.Fd())
	if indices {
		require.Equal(t, "32", row[3])
		require.Equal(t, "128", row[8])
	} else {
		require.Equal(t, []string{"-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"}, row[3:14], "no ring indices printed")
	}
	require.Equal(t, "3", row[14])
	require.Equal(t, "0", row[15])
	require.Equal(t, "-", row[17])
	if napi {
		require.Equal(t, "off", row[18])
	} else {
		require.Equal(t, "-", row[18], "no NAPI state printed (before 6.9)")
	}
}

func TestInspectJSONSchema(t *testing.T) {
	r := inspectTestRing(t)
	for range 3 {
		s, err := r.GetSQE()
		require.NoError(t, err)
		s.Opcode, s.Fd, s.UserData = sys.OpNop, -1, 42
	}
	_, err := r.SubmitAndWait(3)
	require.NoError(t, err)

	code, out, errOut := inspectRun("inspect", "--json", strconv.Itoa(os.Getpid()))
	require.Equal(t, 0, code, errOut)

	// The documented field names, read without the Go struct.
	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	require.Contains(t, raw, "time")
	require.Contains(t, raw, "rings")
	var ring map[string]any
	for _, x := range raw["rings"].([]any) {
		m := x.(map[string]any)
		if m["fd"] == float64(r.Fd()) {
			ring = m
		}
	}
	require.NotNil(t, ring)
	for _, k := range []string{"pid", "comm", "fd", "inode", "unavailable", "attempts", "sq", "cq", "files", "buffers", "poll_list", "sqpoll", "napi"} {
		require.Contains(t, ring, k)
	}
	require.Equal(t, float64(os.Getpid()), ring["pid"])
	require.Equal(t, []any{}, ring["unavailable"])
	require.Nil(t, ring["sqpoll"])
	indices, napi := kernelPrints(t, r.Fd())
	if napi {
		require.Equal(t, map[string]any{"enabled": false, "mode": "disabled", "tracking": "", "busy_poll_ns": float64(0), "prefer_busy_poll": false}, ring["napi"])
	} else {
		require.Nil(t, ring["napi"], "no NAPI state printed (before 6.9)")
	}
	var rep inspectReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	got := findRing(t, rep, r.Fd())
	require.EqualValues(t, 3, got.Files.Count)
	require.Len(t, got.Files.Entries, 3)
	// The kernel names a file by its dentry name before 6.13 (empty for a
	// pipe), by its path since ("pipe:[N]" for a pipe): a regular file's
	// name ends with its own either way.
	require.True(t, strings.HasSuffix(got.Files.Entries[2].Name, inspectFileName), got.Files.Entries)
	require.EqualValues(t, 0, got.Buffers.Count)
	require.Equal(t, 1, got.Attempts)
	if !indices {
		require.Nil(t, ring["sq"], "no ring indices printed")
		require.Nil(t, ring["cq"])
		return
	}
	sq := ring["sq"].(map[string]any)
	for _, k := range []string{"entries", "mask", "head", "tail", "cached_head", "pending", "sqes"} {
		require.Contains(t, sq, k)
	}
	cq := ring["cq"].(map[string]any)
	for _, k := range []string{"entries", "mask", "head", "tail", "cached_tail", "pending", "cqes", "overflow_list"} {
		require.Contains(t, cq, k)
	}
	require.Equal(t, &inspectSQ{Entries: 32, Mask: 31, Head: 3, Tail: 3, CachedHead: 3, SQEs: []inspectSQE{}}, got.SQ)
	require.EqualValues(t, 128, got.CQ.Entries)
	require.EqualValues(t, 3, got.CQ.Tail)
	require.EqualValues(t, 3, got.CQ.Pending, "3 NOP CQEs not reaped yet")
	require.Len(t, got.CQ.CQEs, 3)
	require.EqualValues(t, 42, got.CQ.CQEs[0].UserData)
}

func TestInspectSQPoll(t *testing.T) {
	r := inspectTestRing(t, uring.WithSQPoll(100*time.Millisecond))
	got := findRing(t, inspectJSON(t, strconv.Itoa(os.Getpid()))[0], r.Fd())
	require.NotNil(t, got.SQPoll)
	require.Greater(t, got.SQPoll.TID, 0)
	require.NotNil(t, got.SQPoll.UserSeconds, "stat of the SQPOLL thread")
	code, out, _ := inspectRun("inspect", strconv.Itoa(os.Getpid()))
	require.Equal(t, 0, code)
	require.Regexp(t, `\d+@cpu(\d+|\?) \d`, out)
}

// TestInspectWatch runs NOPs on a ring while inspect refreshes, and checks
// the refresh count and that the rates account for the traffic exactly.
func TestInspectWatch(t *testing.T) {
	r := inspectTestRing(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var loopErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		cqes := make([]sys.CQE, 8)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for range 8 {
				s, err := r.GetSQE()
				if err != nil {
					loopErr = err
					return
				}
				s.Opcode, s.Fd = sys.OpNop, -1
			}
			if _, err := r.SubmitAndWait(8); err != nil {
				loopErr = err
				return
			}
			for n := 0; n < 8; n += r.Reap(cqes) {
			}
			// Let the refresh run promptly even with GOMAXPROCS=1.
			runtime.Gosched()
		}
	}()
	code, out, errOut := inspectRun("inspect", "--watch", "1ms", "--count", "2", strconv.Itoa(os.Getpid()))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 2, strings.Count(out, "SQE/s"), out)
	require.Equal(t, 2, strings.Count(out, "io_uring instance(s)"), out)

	const refreshes = 6
	reps := inspectJSON(t, "--watch", "20ms", "--count", strconv.Itoa(refreshes), strconv.Itoa(os.Getpid()))
	close(stop)
	wg.Wait()
	require.NoError(t, loopErr)
	require.Len(t, reps, refreshes)
	first := findRing(t, reps[0], r.Fd())
	require.Nil(t, first.Rates, "no rate before a second refresh")
	require.InDelta(t, 0.02, reps[0].Watch, 1e-9)
	if indices, _ := kernelPrints(t, r.Fd()); !indices {
		// No ring indices, no rates (before 5.17).
		for _, rep := range reps {
			require.Nil(t, findRing(t, rep, r.Fd()).Rates)
		}
		return
	}
	// A refresh that overruns the interval is followed at once by the next
	// one, so a single interval may see no traffic; each rate must still
	// equal its tail delta, and the run as a whole must see the NOPs.
	prev, total := first, 0.0
	for _, rep := range reps[1:] {
		cur := findRing(t, rep, r.Fd())
		require.NotNil(t, cur.Rates)
		require.Greater(t, cur.Rates.Seconds, 0.0)
		require.InDelta(t, float64(cur.SQ.Tail-prev.SQ.Tail), cur.Rates.SQEsPerSec*cur.Rates.Seconds, 0.5)
		require.InDelta(t, float64(cur.CQ.Tail-prev.CQ.Tail), cur.Rates.CQEsPerSec*cur.Rates.Seconds, 0.5)
		total += cur.Rates.SQEsPerSec * cur.Rates.Seconds
		prev = cur
	}
	require.Greater(t, total, 0.0, "the NOPs between the first and last refresh")
	require.Equal(t, float64(prev.SQ.Tail-first.SQ.Tail), math.Round(total))

}

func TestInspectMissingPID(t *testing.T) {
	code, out, errOut := inspectRun("inspect", "--json", strconv.Itoa(1<<30))
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "pid 1073741824")
	var rep inspectReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Empty(t, rep.Rings)
	require.Len(t, rep.Errors, 1)
}
