//go:build linux

package task

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task/internal/fallback"
)

// fbpPipe is a pipe in blocking mode (O_NONBLOCK clear), closed at the
// end of the test.
func fbpPipe(t *testing.T) (r, w int) {
	t.Helper()
	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_CLOEXEC))
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0], p[1]
}

// fbpSocketpair is a connected stream socket pair in blocking mode.
func fbpSocketpair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

// fbpParked waits until n operations of ex's backend wait (a task parked
// in its call): within a minute, a guard against a hang, not a measure.
func fbpParked(t *testing.T, ex *Executor, n int) {
	t.Helper()
	for range 60000 {
		var busy int
		require.NoError(t, ex.Do(func() { busy = ex.busy() }))
		if busy == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("the executor never had %d operations waiting", n)
}

// fbpGuard is a context that ends a wait that would hang: a guard, not
// a measure.
func fbpGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// On the fallback, a Readv of a pipe that gets no data ends with its
// context (as the ring cancels it), and takes nothing from the pipe: the
// data written later is there, whole, for the next read.
func TestFallbackReadvPipeEndsWithContext(t *testing.T) {
	ex := fbCloseNow(t)
	r, w := fbpPipe(t)
	buf := make([]byte, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	h := SpawnOn(ctx, ex, func(tk *T) (int, error) { return tk.Readv(r, [][]byte{buf[:3], buf[3:]}, -1) })
	n, err := h.Wait(fbpGuard(t))
	require.True(t, h.Done(), "the read did not end with its context")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Zero(t, n)

	_, err = unix.Write(w, []byte("LATEDATA"))
	require.NoError(t, err)
	require.Equal(t, make([]byte, 8), buf, "the cancelled read wrote the caller's buffer")
	got := make([]byte, 16)
	n, err = Run(fbpGuard(t), ex, func(tk *T) (int, error) { return tk.Readv(r, [][]byte{got[:5], got[5:]}, -1) })
	require.NoError(t, err)
	require.Equal(t, "LATEDATA", string(got[:n]))
}

// On the fallback, a Readv of a pipe pending when Close stops its task
// holds the task's buffers no more: data written after Close returned
// stays in the pipe.
func TestFallbackReadvPipeStoppedAtClose(t *testing.T) {
	ex := fbCloseNow(t)
	r, w := fbpPipe(t)
	buf := make([]byte, 8)
	res := goTask(ex, func(tk *T) error {
		_, err := tk.Readv(r, [][]byte{buf[:4], buf[4:]}, -1)
		return err
	})
	fbpParked(t, ex, 1)
	closeReleases(t, ex, res)

	_, err := unix.Write(w, []byte("LATEDATA"))
	require.NoError(t, err)
	// A read still running would take the data now; the pause only
	// gives it the time to (the outcome does not depend on it).
	time.Sleep(10 * time.Millisecond)
	require.Equal(t, "LATEDATA", pipeHolds(t, r), "the data went elsewhere")
	require.Equal(t, make([]byte, 8), buf, "the stopped read wrote the caller's buffer")
}

// On the fallback, Readv and Writev of a pipe and of a socket pair (both
// in blocking mode) move the bytes of several buffers, whether the data
// is there at once or comes while the read waits, with RWF_NOWAIT and
// without (a kernel that refuses it).
func TestFallbackVectoredPipeAndSocket(t *testing.T) {
	type pair struct {
		name string
		mk   func(t *testing.T) (r, w int)
	}
	pairs := []pair{{"pipe", fbpPipe}, {"socketpair", fbpSocketpair}}
	for _, nowait := range []bool{true, false} {
		for _, p := range pairs {
			name := p.name
			if !nowait {
				name += "/no-RWF_NOWAIT"
			}
			t.Run(name, func(t *testing.T) {
				if !nowait {
					fallback.NoNowait = true
					defer func() { fallback.NoNowait = false }()
				}
				ex := fbCloseNow(t)
				r, w := p.mk(t)
				ctx := fbpGuard(t)

				// Data there at once.
				n, err := Run(ctx, ex, func(tk *T) (int, error) {
					return tk.Writev(w, [][]byte{[]byte("ab"), nil, []byte("cdef"), []byte("g")}, -1)
				})
				require.NoError(t, err)
				require.Equal(t, 7, n)
				a, b, c := make([]byte, 3), make([]byte, 0), make([]byte, 10)
				n, err = Run(ctx, ex, func(tk *T) (int, error) { return tk.Readv(r, [][]byte{a, b, c}, -1) })
				require.NoError(t, err)
				require.Equal(t, 7, n)
				require.Equal(t, "abc", string(a))
				require.Equal(t, "defg", string(c[:4]))

				// The read waits for the data.
				d, e := make([]byte, 2), make([]byte, 8)
				h := SpawnOn(ctx, ex, func(tk *T) (int, error) { return tk.Readv(r, [][]byte{d, e}, -1) })
				fbpParked(t, ex, 1)
				n, err = Run(ctx, ex, func(tk *T) (int, error) {
					return tk.Writev(w, [][]byte{[]byte("x"), []byte("yz12")}, -1)
				})
				require.NoError(t, err)
				require.Equal(t, 5, n)
				n, err = h.Wait(ctx)
				require.NoError(t, err)
				require.Equal(t, 5, n)
				require.Equal(t, "xyz12", string(d)+string(e[:3]))

				// A write that waits for room: the reader drains it all.
				big := make([]byte, 1<<20)
				for i := range big {
					big[i] = byte(i * 7)
				}
				wh := SpawnOn(ctx, ex, func(tk *T) (int, error) {
					done := 0
					for done < len(big) {
						half := done + (len(big)-done)/2
						m, err := tk.Writev(w, [][]byte{big[done:half], big[half:]}, -1)
						if err != nil {
							return done, err
						}
						done += m
					}
					return done, nil
				})
				out := make([]byte, 0, len(big))
				tmp := make([]byte, 64<<10)
				for len(out) < len(big) {
					m, err := unix.Read(r, tmp)
					require.NoError(t, err)
					require.NotZero(t, m)
					out = append(out, tmp[:m]...)
				}
				n, err = wh.Wait(ctx)
				require.NoError(t, err)
				require.Equal(t, len(big), n)
				require.Equal(t, big, out)
			})
		}
	}
}
