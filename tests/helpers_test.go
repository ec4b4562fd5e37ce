//go:build linux

package tests

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

// scale picks the count for a stress loop: long under the soak tag, short
// with -short, def otherwise; a tenth of it under the race detector.
func scale(def, short, long int) int {
	n := def
	switch {
	case soakTag && !testing.Short():
		n = long
	case testing.Short():
		n = short
	}
	if raceEnabled {
		n = max(n/10, 1)
	}
	return n
}

// rawFd returns f's descriptor without switching it to blocking mode.
func rawFd(t testing.TB, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	require.NoError(t, err)
	fd := -1
	require.NoError(t, rc.Control(func(p uintptr) { fd = int(p) }))
	return fd
}

// pipe returns both ends of a pipe, closed at the end of the test.
func pipe(t testing.TB) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// fdCount counts this process's open fds.
func fdCount(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(ents)
}

// eventuallyFds waits until the fd count is back to want (closes done by
// the kernel or an executor are asynchronous).
func eventuallyFds(t testing.TB, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := fdCount(t)
		if got <= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("fd count %d, want %d: fds leaked", got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// rssKB reads VmRSS from /proc/self/status.
func rssKB(t testing.TB) int {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// submitWait submits and waits for n CQEs, returning copies of them.
func submitWait(t testing.TB, r *uring.Ring, n int) []sys.CQE {
	t.Helper()
	_, err := r.Submit()
	require.NoError(t, err)
	return reap(t, r, n)
}

// reap waits for n CQEs (5 s at most) and returns copies of them.
func reap(t testing.TB, r *uring.Ring, n int) []sys.CQE {
	t.Helper()
	out := make([]sys.CQE, 0, n)
	buf := make([]sys.CQE, 64)
	deadline := time.Now().Add(5 * time.Second)
	for len(out) < n {
		got := r.Reap(buf[:min(len(buf), n-len(out))])
		out = append(out, buf[:got]...)
		if got == 0 {
			require.True(t, time.Now().Before(deadline), "only %d of %d CQEs", len(out), n)
			if _, err := r.WaitCQETimeout(100 * time.Millisecond); err != nil && err != uring.ErrTimeout {
				require.NoError(t, err)
			}
		}
	}
	return out
}

// byUD indexes CQEs by user_data, failing on a duplicate.
func byUD(t testing.TB, cs []sys.CQE) map[uint64]sys.CQE {
	t.Helper()
	m := make(map[uint64]sys.CQE, len(cs))
	for _, c := range cs {
		_, dup := m[c.UserData]
		require.False(t, dup, "user_data %#x completed twice", c.UserData)
		m[c.UserData] = c
	}
	return m
}

// getSQE hands out an SQE or fails the test.
func getSQE(t testing.TB, r *uring.Ring) *sys.SQE {
	t.Helper()
	s, err := r.GetSQE()
	require.NoError(t, err)
	return s
}
