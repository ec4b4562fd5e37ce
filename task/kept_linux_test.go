//go:build linux

package task

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
)

// TestKeptBytesComeFirst: bytes a multishot loop consumed without
// yielding them (put in place through the executor's seam, as dispose does)
// are what the fd's next Read, Recv and ReadMultishot return, in pieces
// when the buffer is short, before anything from the kernel; MSG_PEEK sees
// them without taking them; T.Close drops them; other fds are untouched.
func TestKeptBytesComeFirst(t *testing.T) {
	requireRing(t)
	ex := newExec(t)
	pr, pw := pipe(t)
	s0, s1 := socketPair(t)
	_, err := unix.Write(pw, []byte("PIPE"))
	require.NoError(t, err)
	_, err = unix.Write(s1, []byte("SOCK"))
	require.NoError(t, err)
	var got []string
	err = runTask(t, ex, func(tk *T) error {
		ringOf(tk.ex).KeepForTest(pr, []byte("ab"))
		ringOf(tk.ex).KeepForTest(pr, []byte("cde")) // appended, in order
		ringOf(tk.ex).KeepForTest(s0, []byte("xy"))
		b := make([]byte, 4)
		read := func(what string, n int, err error) error {
			if err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			got = append(got, what+"="+string(b[:n]))
			return nil
		}
		n, err := tk.Read(pr, b[:2], CurrentPos)
		if err := read("read", n, err); err != nil {
			return err
		}
		n, err = tk.Read(pr, b, CurrentPos) // the rest of the kept bytes, not the pipe's
		if err := read("read", n, err); err != nil {
			return err
		}
		n, err = tk.Read(pr, b, CurrentPos) // now the pipe's
		if err := read("read", n, err); err != nil {
			return err
		}
		n, err = tk.Recv(s0, b, unix.MSG_PEEK)
		if err := read("peek", n, err); err != nil {
			return err
		}
		n, err = tk.Recv(s0, b, 0)
		if err := read("recv", n, err); err != nil {
			return err
		}
		n, err = tk.Recv(s0, b, 0)
		if err := read("recv", n, err); err != nil {
			return err
		}
		// ReadMultishot yields the kept bytes first, as one item.
		ringOf(tk.ex).KeepForTest(pr, []byte("kept"))
		_, err = unix.Write(pw, []byte("more"))
		if err != nil {
			return err
		}
		pool, err := newPool(tk, 3, 4, 16)
		if err != nil {
			return err
		}
		defer pool.Close()
		for data, err := range tk.ReadMultishot(pr, pool) {
			if err != nil {
				return err
			}
			got = append(got, "multishot="+string(data))
			if string(data) != "kept" {
				break
			}
		}
		// Close drops what the fd kept.
		fd, err := unix.Dup(pr)
		if err != nil {
			return err
		}
		ringOf(tk.ex).KeepForTest(fd, []byte("gone"))
		if err := tk.Close(fd); err != nil {
			return err
		}
		got = append(got, fmt.Sprintf("after-close=%d", ringOf(tk.ex).KeptFds()))
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"read=ab", "read=cde", "read=PIPE", "peek=xy", "recv=xy", "recv=SOCK",
		"multishot=kept", "multishot=more", "after-close=0"}, got)
	require.Equal(t, 2+3+2+4+4, onExec(t, ex, func() int { return ringOf(ex).Counters().KeptBytes }))
}

// keptEnd is how a kept-bytes test ends its multishot loop and lets go of
// the fd the loop read.
type keptEnd int

const (
	keepOpen     keptEnd = iota // break; the fd stays open
	closeBreak                  // T.Close(fd) in the body, then break (the documented way)
	closePanic                  // T.Close(fd) in the body, then a panic
	breakClose                  // break, then unix.Close(fd): a close that drops nothing
	breakReplace                // break, then dup3 of another file onto fd without a close
)

// keptFile is a socket pair or a pipe: the loop reads rd, the test writes
// wr.
type keptFile struct {
	rd, wr int
	pipe   bool
}

func newKeptFile(t *testing.T, pipe bool) keptFile {
	t.Helper()
	var p [2]int
	var err error
	if pipe {
		err = unix.Pipe2(p[:], unix.O_CLOEXEC)
	} else {
		p, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	}
	require.NoError(t, err)
	return keptFile{rd: p[0], wr: p[1], pipe: pipe}
}

// read is one Recv (Read for a pipe) of f's reading fd.
func (f keptFile) read(tk *T, b []byte) (int, error) {
	if f.pipe {
		return tk.Read(f.rd, b, CurrentPos)
	}
	return tk.Recv(f.rd, b, 0)
}

// keptRun runs a multishot loop over old (RecvMultishot, ReadMultishot for
// a pipe) that yields "hello"; the body then writes a secret and waits
// until the kernel has consumed it (the armed request took it into a CQE
// the body never sees, so it is kept), and the loop ends as end says. It
// returns what the executor kept (fds) after the loop, and what the next
// read of old's number returns: when end let go of the fd, the number
// names a new file of the same kind first (dup3), with bytes of its own.
func keptRun(t *testing.T, end keptEnd, pipe bool) (kept int, got string, stale int) {
	c := uring.CapMultishotRecv
	if pipe {
		c = uring.CapMultishotRead
	}
	// The secret must be consumed while the body runs: only the multishot
	// form has a request armed meanwhile.
	testutil.Require(t, uring.CheckCapability(c))
	requireRing(t)
	ex := newExec(t)
	old := newKeptFile(t, pipe)
	open := []int{old.rd, old.wr}
	t.Cleanup(func() {
		for _, fd := range open {
			unix.Close(fd)
		}
	})
	_, err := unix.Write(old.wr, []byte("hello"))
	require.NoError(t, err)
	err = runTask(t, ex, func(tk *T) (err error) {
		pool, err := newPool(tk, 5, 8, 64)
		if err != nil {
			return err
		}
		defer pool.Close()
		seq := tk.RecvMultishot(old.rd, pool, 0)
		if pipe {
			seq = tk.ReadMultishot(old.rd, pool)
		}
		panicked := func() (p any) {
			defer func() { p = recover() }()
			for data, err := range seq {
				if err != nil {
					panic(err)
				}
				if string(data) != "hello" {
					panic(errf("got %q", data))
				}
				if _, err := unix.Write(old.wr, []byte("SECRET-of-the-old-file")); err != nil {
					panic(err)
				}
				for {
					n, err := unix.IoctlGetInt(old.rd, unix.SIOCINQ) // FIONREAD, pipes included
					if err != nil {
						panic(err)
					}
					if n == 0 {
						break
					}
					if err := tk.Sleep(time.Millisecond); err != nil {
						panic(err)
					}
				}
				if end == closeBreak || end == closePanic {
					if err := tk.Close(old.rd); err != nil {
						panic(err)
					}
				}
				if end == closePanic {
					panic("body")
				}
				break
			}
			return nil
		}()
		switch {
		case end == closePanic && panicked != "body":
			return errf("panic %v", panicked)
		case end != closePanic && panicked != nil:
			return errf("panic %v", panicked)
		}
		// The aborted request's last CQE (a panicking body does not wait).
		for tk.ex.busy() != 0 {
			if err := tk.Sleep(time.Millisecond); err != nil {
				return err
			}
		}
		kept = ringOf(tk.ex).KeptFds()
		if end == breakClose {
			if err := unix.Close(old.rd); err != nil {
				return err
			}
		}
		if end != keepOpen {
			// A new file takes the number.
			nf := newKeptFile(t, pipe)
			open = append(open, nf.wr)
			if nf.rd != old.rd { // the lowest free number may be old's or not
				if err := unix.Dup3(nf.rd, old.rd, unix.O_CLOEXEC); err != nil {
					return err
				}
				if err := unix.Close(nf.rd); err != nil {
					return err
				}
			}
			if _, err := unix.Write(nf.wr, []byte("new-data")); err != nil {
				return err
			}
		}
		b := make([]byte, 64)
		n, err := old.read(tk, b)
		if err != nil {
			return err
		}
		got = string(b[:n])
		stale = ringOf(tk.ex).KeptFds()
		return nil
	})
	require.NoError(t, err)
	return kept, got, stale
}

// TestKeptBytesSameFile: bytes a multishot loop consumed and never
// yielded go to the next read of the same socket or pipe, not of the fd
// number. After a break with the fd still open its next read returns
// them; once the fd was closed (T.Close inside the loop before the break
// disposes of the entries, a panicking body, unix.Close, which T.Close's
// drop never sees, or a dup3 over it) and its number names another file,
// a read of the number returns that file's bytes only, and the stale ones
// are gone.
func TestKeptBytesSameFile(t *testing.T) {
	for _, kind := range []struct {
		name string
		pipe bool
	}{{"socket", false}, {"pipe", true}} {
		t.Run(kind.name, func(t *testing.T) {
			t.Run("keep-open", func(t *testing.T) {
				kept, got, stale := keptRun(t, keepOpen, kind.pipe)
				require.Equal(t, 1, kept, "nothing kept: the test proves nothing")
				require.Equal(t, "SECRET-of-the-old-file", got)
				require.Zero(t, stale)
			})
			for _, c := range []struct {
				name string
				end  keptEnd
			}{
				{"close-break", closeBreak},
				{"close-panic", closePanic},
				{"break-unix-close", breakClose},
				{"break-dup3", breakReplace},
			} {
				t.Run(c.name, func(t *testing.T) {
					kept, got, stale := keptRun(t, c.end, kind.pipe)
					require.Equal(t, 1, kept, "nothing kept: the test proves nothing")
					require.Equal(t, "new-data", got, "bytes of the old file through a reused fd number")
					require.Zero(t, stale, "stale bytes still kept")
				})
			}
		})
	}
}
