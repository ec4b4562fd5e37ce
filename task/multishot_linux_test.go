//go:build linux

package task

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/task/internal/ring"
)

// listenFd returns a loopback listener's address and a dup of its fd.
func listenFd(t *testing.T) (string, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f, err := ln.(*net.TCPListener).File()
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // f keeps the socket
	t.Cleanup(func() { f.Close() })
	return addr, int(f.Fd())
}

// socketPair returns a connected AF_UNIX stream pair closed at the end.
func socketPair(t *testing.T) (int, int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

func fdCount(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(ents)
}

// forEachForm runs test with the multishot requests (where the probe says
// the kernel has them: at or past their release it must) and with the
// one-shot fallback that kernels without them get.
func forEachForm(t *testing.T, c uring.Capability, test func(t *testing.T)) {
	t.Run("multishot", func(t *testing.T) {
		testutil.Require(t, uring.CheckCapability(c))
		test(t)
	})
	t.Run("single-shot", func(t *testing.T) {
		ring.ForceSingleShot = true
		defer func() { ring.ForceSingleShot = false }()
		test(t)
	})
}

// newPool registers a provided-buffer pool on the task's executor.
func newPool(tk *T, group uint16, count, size int) (*reg.BufPool, error) {
	return reg.NewBufPool(tk.Executor().Ring(), reg.PoolConfig{Group: group, Count: count, Size: size})
}

func TestAcceptMultishot(t *testing.T) { forEachForm(t, uring.CapMultishotAccept, testAcceptMultishot) }

func testAcceptMultishot(t *testing.T) {
	ex := newExec(t)
	addr, lfd := listenFd(t)
	const n = 16
	base := fdCount(t)
	conns := make(chan net.Conn, n+2)
	go func() {
		for i := 0; i < n+2; i++ {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				close(conns)
				return
			}
			conns <- c
		}
		close(conns)
	}()
	var got int
	err := runTask(t, ex, func(tk *T) error {
		for fd, err := range tk.AcceptMultishot(lfd, 0) {
			if err != nil {
				return err
			}
			if _, err := unix.Getpeername(fd); err != nil {
				return err
			}
			if err := tk.Close(fd); err != nil {
				return err
			}
			if got++; got == n {
				break
			}
		}
		if ex.busy() != 0 {
			return errf("busy = %d after the loop", ex.busy())
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, n, got)
	for c := range conns {
		c.Close()
	}
	// Connections accepted after the break were closed by the executor.
	require.Eventually(t, func() bool { return fdCount(t) <= base }, time.Minute, 5*time.Millisecond)
}

// recvAll collects a multishot stream, yielding the thread every few
// chunks so that CQEs pile up and the small ring runs dry.
func recvAll(tk *T, seq func(yield func([]byte, error) bool)) ([]byte, error) {
	var got []byte
	i := 0
	for data, err := range seq {
		if err != nil {
			return got, err
		}
		got = append(got, data...)
		if i++; i%3 == 0 {
			if err := tk.Sleep(50 * time.Microsecond); err != nil {
				return got, err
			}
		}
	}
	return got, nil
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// A stream much larger than the buffer ring: ENOBUFS ends the request
// again and again, it is re-armed, and every byte arrives in order. Every
// buffer goes back once (the pool refuses a double Put and a double Take,
// and would corrupt the data).
func TestRecvMultishotLargerThanRing(t *testing.T) {
	forEachForm(t, uring.CapMultishotRecv, testRecvMultishotLargerThanRing)
}

func testRecvMultishotLargerThanRing(t *testing.T) {
	requireRing(t) // a provided-buffer pool needs a ring
	ex := newExec(t)
	a, b := socketPair(t)
	want := randomBytes(256 << 10)
	go func() {
		for off := 0; off < len(want); {
			n, err := unix.Write(b, want[off:min(off+8192, len(want))])
			if err != nil {
				break
			}
			off += n
		}
		unix.Shutdown(b, unix.SHUT_WR)
	}()
	var got []byte
	var out int
	err := runTask(t, ex, func(tk *T) error {
		pool, err := newPool(tk, 7, 4, 512)
		if err != nil {
			return err
		}
		defer pool.Close()
		got, err = recvAll(tk, tk.RecvMultishot(a, pool, 0))
		out = pool.Out()
		return err
	})
	require.NoError(t, err)
	require.Equal(t, len(want), len(got))
	require.True(t, bytes.Equal(want, got), "data differs")
	require.Zero(t, out, "buffers still out")
	st := onExec(t, ex, func() ring.Counters { return ringOf(ex).Counters() })
	if ring.ForceSingleShot {
		require.Greater(t, st.Arms, 4, "one-shot requests: one per buffer")
	} else {
		require.Positive(t, st.Rearms, "the ring never ran dry: the test proves nothing")
	}
	require.Zero(t, st.PutErrs)
	require.Zero(t, onExec(t, ex, func() int { return ex.busy() }))
}

func TestReadMultishotPipe(t *testing.T) {
	forEachForm(t, uring.CapMultishotRead, testReadMultishotPipe)
}

func testReadMultishotPipe(t *testing.T) {
	requireRing(t) // a provided-buffer pool needs a ring
	ex := newExec(t)
	r, w := pipe(t)
	want := randomBytes(64 << 10)
	go func() {
		for off := 0; off < len(want); {
			n, err := unix.Write(w, want[off:min(off+4096, len(want))])
			if err != nil {
				return
			}
			off += n
		}
	}()
	var got []byte
	err := runTask(t, ex, func(tk *T) error {
		pool, err := newPool(tk, 8, 2, 1024)
		if err != nil {
			return err
		}
		defer pool.Close()
		for data, err := range tk.ReadMultishot(r, pool) {
			if err != nil {
				return err
			}
			got = append(got, data...)
			if len(got) >= len(want) {
				break // the write end stays open: no EOF
			}
		}
		if pool.Out() != 0 || ex.busy() != 0 {
			return errf("out %d busy %d", pool.Out(), ex.busy())
		}
		return nil
	})
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "data differs")
}

// Breaking out cancels the request and waits for its last CQE: no buffer
// stays out, no slot stays busy, and the socket can be read again.
func TestMultishotBreakEarly(t *testing.T) {
	forEachForm(t, uring.CapMultishotRecv, testMultishotBreakEarly)
}

func testMultishotBreakEarly(t *testing.T) {
	requireRing(t) // a provided-buffer pool needs a ring
	ex := newExec(t)
	a, b := socketPair(t)
	_, err := unix.Write(b, []byte("first"))
	require.NoError(t, err)
	err = runTask(t, ex, func(tk *T) error {
		pool, err := newPool(tk, 9, 8, 64)
		if err != nil {
			return err
		}
		defer pool.Close()
		for round := 0; round < 3; round++ {
			for data, err := range tk.RecvMultishot(a, pool, 0) {
				if err != nil {
					return err
				}
				if len(data) == 0 {
					return errf("round %d: empty chunk", round)
				}
				break
			}
			if pool.Out() != 0 || ex.busy() != 0 {
				return errf("round %d: out %d busy %d", round, pool.Out(), ex.busy())
			}
			if _, err := unix.Write(b, []byte("more")); err != nil {
				return err
			}
		}
		// A multishot poll, broken out of after three events.
		n := 0
		for ev, err := range tk.PollMultishot(a, unix.POLLIN) {
			if err != nil {
				return err
			}
			if ev&unix.POLLIN == 0 {
				return errf("events %#x", ev)
			}
			buf := make([]byte, 64)
			if _, err := tk.Recv(a, buf, 0); err != nil {
				return err
			}
			if n++; n == 3 {
				break
			}
			if _, err := unix.Write(b, []byte("x")); err != nil {
				return err
			}
		}
		if ex.busy() != 0 {
			return errf("busy %d after poll", ex.busy())
		}
		return nil
	})
	require.NoError(t, err)
	require.Zero(t, onExec(t, ex, func() int { return ringOf(ex).Counters().PutErrs }))
}

// Cancelling the task's context ends the sequence with the context's
// error, after the request's last CQE.
func TestMultishotCancel(t *testing.T) { forEachForm(t, uring.CapMultishotRecv, testMultishotCancel) }

func testMultishotCancel(t *testing.T) {
	requireRing(t) // a provided-buffer pool needs a ring
	ex := newExec(t)
	a, _ := socketPair(t)
	err := runTask(t, ex, func(tk *T) error {
		pool, err := newPool(tk, 10, 4, 64)
		if err != nil {
			return err
		}
		defer pool.Close()
		ctx, cancel := context.WithTimeout(tk.Context(), 20*time.Millisecond)
		defer cancel()
		var last error
		err = tk.Scope(ctx, func(tk *T) error {
			for _, err := range tk.RecvMultishot(a, pool, 0) {
				last = err
			}
			return nil
		})
		if !errors.Is(last, context.DeadlineExceeded) {
			return errf("last error %v", last)
		}
		if pool.Out() != 0 || ex.busy() != 0 {
			return errf("out %d busy %d", pool.Out(), ex.busy())
		}
		// A nil pool is an argument error.
		for _, err := range tk.RecvMultishot(a, nil, 0) {
			last = err
		}
		if !errors.Is(last, unix.EINVAL) {
			return errf("nil pool: %v", last)
		}
		return err
	})
	require.NoError(t, err)
}
