//go:build linux

package task

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task/internal/fallback"
	"github.com/pure-uring/uring/task/internal/iop"
)

// callGate holds the goroutine of one blocking call of the fallback (the
// call of code on fd) at a step, and reports its steps.
type callGate struct {
	reached chan struct{} // the call got to the step it is held at
	release chan struct{} // lets it go on
	waited  chan struct{} // Abandon waits for its system call
	ended   chan struct{} // its goroutine exits

	reachOnce, waitOnce, endOnce, releaseOnce sync.Once
}

// gateCall installs a gate for the next blocking call of code on fd, held
// at step at; the hook goes at the end of the test.
func gateCall(t *testing.T, code iop.Code, fd int, at fallback.CallStep) *callGate {
	t.Helper()
	g := &callGate{reached: make(chan struct{}), release: make(chan struct{}), waited: make(chan struct{}), ended: make(chan struct{})}
	fallback.SetCallHook(func(c iop.Code, f int, step fallback.CallStep) {
		if c != code || f != fd {
			return
		}
		switch step {
		case at:
			g.reachOnce.Do(func() { close(g.reached) })
			<-g.release
		case fallback.CallWaited:
			g.waitOnce.Do(func() { close(g.waited) })
		case fallback.CallEnd:
			g.endOnce.Do(func() { close(g.ended) })
		}
	})
	t.Cleanup(func() {
		g.let()
		fallback.SetCallHook(nil)
	})
	return g
}

// let releases the held call.
func (g *callGate) let() { g.releaseOnce.Do(func() { close(g.release) }) }

// waitClosed waits for c to be closed: within a minute, a guard against a
// hang, not a measure.
func waitClosed(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(time.Minute):
		t.Fatal(what)
	}
}

// fbCloseNow is a fallback executor with no close wait: Close stops the
// tasks still waiting at once.
func fbCloseNow(t *testing.T) *Executor {
	t.Helper()
	ex, err := NewExecutor(WithoutIOUring(), WithCloseWait(0))
	require.NoError(t, err)
	t.Cleanup(func() { _ = ex.Close() })
	return ex
}

// goTask runs fn as a task on ex from a goroutine; its error arrives on
// the channel.
func goTask(ex *Executor, fn func(tk *T) error) <-chan error {
	c := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), ex, func(tk *T) (struct{}, error) { return struct{}{}, fn(tk) })
		c <- err
	}()
	return c
}

// closeReleases closes ex while its task is held in a blocking call: the
// task is stopped, its caller gets ErrClosed.
func closeReleases(t *testing.T, ex *Executor, res <-chan error) {
	t.Helper()
	require.ErrorContains(t, ex.Close(), "stopped")
	require.ErrorIs(t, <-res, ErrClosed)
}

// fileWith makes a file holding s and opens it read-write.
func fileWith(t *testing.T, name, s string) (path string, fd int) {
	t.Helper()
	path = filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(s), 0o600))
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { unix.Close(fd) })
	return path, fd
}

// pipeHolds is what pipe end r holds now (read without waiting).
func pipeHolds(t *testing.T, r int) string {
	t.Helper()
	n, err := unix.IoctlGetInt(r, unix.TIOCINQ)
	require.NoError(t, err)
	if n == 0 {
		return ""
	}
	b := make([]byte, n)
	m, err := unix.Read(r, b)
	require.NoError(t, err)
	return string(b[:m])
}

// reuse makes the number fd name what other names, as a close of fd and
// an open that got its number would (dup3 does both at once, so no other
// open of the test process can take the number in between).
func reuse(t *testing.T, other, fd int) {
	t.Helper()
	err := unix.Dup3(other, fd, unix.O_CLOEXEC)
	require.NoError(t, err)
}

// readFile is path's content.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// On the fallback, a blocking call runs on a goroutine. When Close stops
// the task that issued it (past the close wait), its caller takes the
// task's end as the end of the call and closes the fd, whose number the
// next open gets: the call must never run its system call on that
// number afterwards. Each case holds the call's goroutine (a test hook)
// before its system call, closes the executor, puts another file at the
// fd's number, and lets the goroutine go on: the other file keeps its
// bytes.
func TestFallbackStoppedCallNeverUsesReusedFd(t *testing.T) {
	t.Run("WriteNotStarted", func(t *testing.T) {
		// A regular file's write (RWF_NOWAIT refused: a goroutine's pwrite).
		fallback.NoNowait = true
		defer func() { fallback.NoNowait = false }()
		pathA, fdA := fileWith(t, "a", "AAAAAAAA")
		pathB, fdB := fileWith(t, "b", "BBBBBBBB")
		ex := fbCloseNow(t)
		g := gateCall(t, iop.Write, fdA, fallback.CallStart)
		res := goTask(ex, func(tk *T) error {
			_, err := tk.Write(fdA, []byte("XXXXXXXX"), 0)
			return err
		})
		waitClosed(t, g.reached, "the call never began")
		closeReleases(t, ex, res)
		reuse(t, fdB, fdA)
		g.let()
		waitClosed(t, g.ended, "the call's goroutine never ended")
		require.Equal(t, "BBBBBBBB", readFile(t, pathB), "the stopped task's write went to the file that took its fd's number")
		require.Equal(t, "AAAAAAAA", readFile(t, pathA), "the write ran after its task was stopped")
	})
	t.Run("ReadNotStarted", func(t *testing.T) {
		// A read at the file position: a pipe that took the number would
		// lose its bytes to it.
		fallback.NoNowait = true
		defer func() { fallback.NoNowait = false }()
		_, fdA := fileWith(t, "a", "AAAAAAAA")
		r, w := pipe(t)
		ex := fbCloseNow(t)
		g := gateCall(t, iop.Read, fdA, fallback.CallStart)
		buf := make([]byte, 8)
		res := goTask(ex, func(tk *T) error {
			_, err := tk.Read(fdA, buf, CurrentPos)
			return err
		})
		waitClosed(t, g.reached, "the call never began")
		closeReleases(t, ex, res)
		reuse(t, r, fdA)
		_, err := unix.Write(w, []byte("victim"))
		require.NoError(t, err)
		g.let()
		waitClosed(t, g.ended, "the call's goroutine never ended")
		require.Equal(t, "victim", pipeHolds(t, r), "the stopped task's read took the bytes of the pipe that got its fd's number")
	})
	t.Run("ReadRunningIsWaited", func(t *testing.T) {
		// A call that claimed its fd (its system call comes next): Close
		// waits for it before the task is released.
		fallback.NoNowait = true
		defer func() { fallback.NoNowait = false }()
		_, fdA := fileWith(t, "a", "AAAAAAAA")
		_, fdB := fileWith(t, "b", "BBBBBBBB")
		ex := fbCloseNow(t)
		g := gateCall(t, iop.Read, fdA, fallback.CallRun)
		buf := make([]byte, 8)
		res := goTask(ex, func(tk *T) error {
			_, err := tk.Read(fdA, buf, 0)
			return err
		})
		waitClosed(t, g.reached, "the call never began")
		closed := make(chan error, 1)
		go func() { closed <- ex.Close() }()
		select {
		case <-g.waited:
		case err := <-res:
			g.let()
			waitClosed(t, g.ended, "the call's goroutine never ended")
			t.Fatalf("the task was released (%v) while its read had yet to run", err)
		}
		g.let()
		require.ErrorIs(t, <-res, ErrClosed)
		require.ErrorContains(t, <-closed, "stopped")
		reuse(t, fdB, fdA)
		waitClosed(t, g.ended, "the call's goroutine never ended")
		require.Equal(t, "AAAAAAAA", string(buf), "the read ran on its own file, before its task was released")
	})
	t.Run("ReadvPipe", func(t *testing.T) {
		// Readv on a pipe (a call that may wait for another party) runs
		// as a read does, on the executor's thread once the pipe is
		// ready: stopped at Close, it reads nothing after, neither the
		// pipe it was given nor the one that took its fd's number.
		r1, w1 := pipe(t)
		r2, w2 := pipe(t)
		ex := fbCloseNow(t)
		buf := make([]byte, 8)
		res := goTask(ex, func(tk *T) error {
			_, err := tk.Readv(r1, [][]byte{buf}, CurrentPos)
			return err
		})
		fbpParked(t, ex, 1)
		closeReleases(t, ex, res)
		_, err := unix.Write(w1, []byte("orig"))
		require.NoError(t, err)
		require.Equal(t, "orig", pipeHolds(t, r1), "the stopped task's readv read its pipe")
		reuse(t, r2, r1)
		_, err = unix.Write(w2, []byte("victim"))
		require.NoError(t, err)
		require.Equal(t, "victim", pipeHolds(t, r2), "the stopped task's readv took the bytes of the pipe that got its fd's number")
		require.Equal(t, make([]byte, 8), buf, "the stopped task's readv wrote its buffer")
	})
	t.Run("SpliceRunning", func(t *testing.T) {
		// A pipe-to-pipe splice that claimed its call: both ends are its own.
		r1, w1 := pipe(t)
		r2, w2 := pipe(t)
		r3, w3 := pipe(t)
		r4, w4 := pipe(t)
		ex := fbCloseNow(t)
		g := gateCall(t, iop.Splice, w2, fallback.CallRun)
		res := goTask(ex, func(tk *T) error {
			_, err := tk.Splice(r1, -1, w2, -1, 4, 0)
			return err
		})
		waitClosed(t, g.reached, "the call never began")
		closeReleases(t, ex, res)
		_, err := unix.Write(w1, []byte("orig"))
		require.NoError(t, err)
		reuse(t, r3, r1) // the in end's number: another pipe, with bytes in it
		reuse(t, w4, w2) // the out end's number: another pipe
		_, err = unix.Write(w3, []byte("victim"))
		require.NoError(t, err)
		g.let()
		waitClosed(t, g.ended, "the call's goroutine never ended")
		require.Equal(t, "victim", pipeHolds(t, r3), "the stopped splice took the bytes of the pipe that got its in fd's number")
		require.Equal(t, "", pipeHolds(t, r4), "the stopped splice wrote into the pipe that got its out fd's number")
		require.Equal(t, "orig", pipeHolds(t, r2), "the splice moved its own pipe's bytes")
	})
	for _, step := range []fallback.CallStep{fallback.CallStart, fallback.CallRun} {
		name := map[fallback.CallStep]string{fallback.CallStart: "OpenatNotStarted", fallback.CallRun: "OpenatRunning"}[step]
		t.Run(name, func(t *testing.T) {
			// An open relative to a directory fd (it may wait for a
			// FIFO's peer): never in the directory that took the number.
			dirA, dirB := t.TempDir(), t.TempDir()
			fdA, err := unix.Open(dirA, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			require.NoError(t, err)
			defer unix.Close(fdA)
			fdB, err := unix.Open(dirB, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			require.NoError(t, err)
			defer unix.Close(fdB)
			ex := fbCloseNow(t)
			g := gateCall(t, iop.Openat, fdA, step)
			res := goTask(ex, func(tk *T) error {
				fd, err := tk.Openat(fdA, "x", unix.O_RDWR|unix.O_CREAT, 0o600)
				if err == nil {
					_ = tk.Close(fd)
				}
				return err
			})
			waitClosed(t, g.reached, "the call never began")
			closeReleases(t, ex, res)
			reuse(t, fdB, fdA)
			g.let()
			waitClosed(t, g.ended, "the call's goroutine never ended")
			_, err = os.Stat(filepath.Join(dirB, "x"))
			require.ErrorIs(t, err, os.ErrNotExist, "the stopped task's open created its file in the directory that got its fd's number")
			_, err = os.Stat(filepath.Join(dirA, "x"))
			if step == fallback.CallStart {
				require.ErrorIs(t, err, os.ErrNotExist, "the open ran after its task was stopped")
			} else {
				// It ran in its own directory; the fd it made is closed,
				// not leaked (the fd check of TestMain).
				require.NoError(t, err)
			}
		})
	}
}

// On the fallback, a splice between a regular file and a pipe waits for
// the pipe as a read does (readiness, cancellable), not inside a call
// that only the pipe's other party could end: a context's cancel and
// Close end the wait; bytes that come, or room that is made, let it go
// on. A splice the caller asked SPLICE_F_NONBLOCK for still fails with
// EAGAIN. Calls on pipes, which run on fds of their own, leave none open.
func TestFallbackSpliceFileWaitsForPipe(t *testing.T) {
	newFb := func(t *testing.T) *Executor {
		ex, err := NewExecutor(WithoutIOUring())
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, ex.Close()) })
		return ex
	}
	t.Run("FromPipeCancelled", func(t *testing.T) {
		ex := newFb(t)
		_, fd := fileWith(t, "f", "")
		r, _ := pipe(t)
		g := gateCall(t, iop.Splice, fd, -1)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res := make(chan error, 1)
		go func() {
			_, err := Run(ctx, ex, func(tk *T) (int, error) { return tk.Splice(r, -1, fd, 0, 5, 0) })
			res <- err
		}()
		waitClosed(t, g.ended, "the splice's first call never ended")
		cancel()
		require.ErrorIs(t, <-res, context.Canceled)
	})
	t.Run("FromPipeData", func(t *testing.T) {
		ex := newFb(t)
		path, fd := fileWith(t, "f", "")
		r, w := pipe(t)
		g := gateCall(t, iop.Splice, fd, -1)
		res := goTask(ex, func(tk *T) error {
			n, err := tk.Splice(r, -1, fd, 0, 5, 0)
			if err == nil && n != 5 {
				return errf("spliced %d of 5", n)
			}
			return err
		})
		waitClosed(t, g.ended, "the splice's first call never ended")
		_, err := unix.Write(w, []byte("hello"))
		require.NoError(t, err)
		require.NoError(t, <-res)
		require.Equal(t, "hello", readFile(t, path))
	})
	t.Run("ToFullPipe", func(t *testing.T) {
		ex := newFb(t)
		_, fd := fileWith(t, "f", "hello")
		r, w := pipe(t)
		size, err := unix.FcntlInt(uintptr(w), unix.F_SETPIPE_SZ, 4096)
		require.NoError(t, err)
		fill := make([]byte, size)
		n, err := unix.Write(w, fill)
		require.NoError(t, err)
		require.Equal(t, size, n)
		g := gateCall(t, iop.Splice, w, -1)
		res := goTask(ex, func(tk *T) error {
			n, err := tk.Splice(fd, 0, w, -1, 5, 0)
			if err == nil && n != 5 {
				return errf("spliced %d of 5", n)
			}
			return err
		})
		waitClosed(t, g.ended, "the splice's first call never ended")
		got := make([]byte, size)
		n, err = unix.Read(r, got)
		require.NoError(t, err)
		require.Equal(t, size, n)
		require.NoError(t, <-res)
		require.Equal(t, "hello", pipeHolds(t, r))
	})
	t.Run("NonblockAsked", func(t *testing.T) {
		ex := newFb(t)
		_, fd := fileWith(t, "f", "")
		r, _ := pipe(t)
		err := runTask(t, ex, func(tk *T) error {
			_, err := tk.Splice(r, -1, fd, 0, 5, unix.SPLICE_F_NONBLOCK)
			return err
		})
		require.ErrorIs(t, err, unix.EAGAIN)
	})
	t.Run("Close", func(t *testing.T) {
		ex, err := NewExecutor(WithoutIOUring())
		require.NoError(t, err)
		_, fd := fileWith(t, "f", "")
		r, _ := pipe(t)
		g := gateCall(t, iop.Splice, fd, -1)
		res := goTask(ex, func(tk *T) error {
			_, err := tk.Splice(r, -1, fd, 0, 5, 0)
			return err
		})
		waitClosed(t, g.ended, "the splice's first call never ended")
		require.NoError(t, ex.Close(), "Close had to stop the task")
		require.ErrorIs(t, <-res, ErrClosed)
	})
	t.Run("PipeCalls", func(t *testing.T) {
		// Calls on pipes (fds of their own): results as ever, no fd left.
		ex := newFb(t)
		r1, w1 := pipe(t)
		r2, w2 := pipe(t)
		got := make([]byte, 7)
		err := runTask(t, ex, func(tk *T) error {
			if n, err := tk.Writev(w1, [][]byte{[]byte("abc"), []byte("defg")}, CurrentPos); err != nil || n != 7 {
				return errf("writev %d %v", n, err)
			}
			if n, err := tk.Splice(r1, -1, w2, -1, 7, 0); err != nil || n != 7 {
				return errf("splice %d %v", n, err)
			}
			if n, err := tk.Readv(r2, [][]byte{got[:3], got[3:]}, CurrentPos); err != nil || n != 7 {
				return errf("readv %d %v", n, err)
			}
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, "abcdefg", string(got))
	})
}
