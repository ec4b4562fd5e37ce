//go:build linux

package task

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
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
