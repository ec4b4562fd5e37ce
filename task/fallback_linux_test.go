//go:build linux

package task

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/fallback"
)

// On the fallback backend, what only io_uring has (a linked chain, a raw
// SQE) is an error matching uring.ErrUnsupported that names it; the
// executor says which backend runs and why.
func TestFallbackRingOnlyOpsUnsupported(t *testing.T) {
	ex, err := NewExecutor(WithoutIOUring())
	require.NoError(t, err)
	defer func() { require.NoError(t, ex.Close()) }()
	b := ex.Backend()
	require.Equal(t, BackendFallback, b.Kind)
	require.NotEmpty(t, b.Reason)
	require.Nil(t, ex.Ring())
	path := filepath.Join(t.TempDir(), "f")
	err = runTask(t, ex, func(tk *T) error {
		fd, err := tk.Open(path, unix.O_RDWR|unix.O_CREAT, 0o600)
		if err != nil {
			return err
		}
		defer tk.Close(fd)
		_, lerr := tk.Link(WriteOp(fd, []byte("x"), 0), FsyncOp(fd, 0))
		require.True(t, errors.Is(lerr, uring.ErrUnsupported), "Link: %v", lerr)
		require.ErrorContains(t, lerr, "link")
		_, _, aerr := tk.Await(func(s *sys.SQE) { s.Opcode, s.Fd = sys.OpNop, -1 })
		require.True(t, errors.Is(aerr, uring.ErrUnsupported), "Await: %v", aerr)
		require.ErrorContains(t, aerr, "raw SQE")
		// Plain I/O still works: the write lands.
		n, err := tk.Write(fd, []byte("ok"), 0)
		if err != nil || n != 2 {
			return errf("write: %d %v", n, err)
		}
		got := make([]byte, 2)
		if n, err := tk.Read(fd, got, 0); err != nil || n != 2 || string(got) != "ok" {
			return errf("read back: %d %v %q", n, err, got)
		}
		return nil
	})
	require.NoError(t, err)
}

// Where the kernel refuses RWF_NOWAIT on pipes (5.10), the fallback waits
// for readiness and then reads what is there or writes what fits: a read
// waits for its data and ends at a cancel, a large write arrives whole,
// and a closed writer is EOF.
func TestFallbackPipeWithoutNowait(t *testing.T) {
	fallback.NoNowait = true
	defer func() { fallback.NoNowait = false }()
	ex, err := NewExecutor(WithoutIOUring())
	require.NoError(t, err)
	defer func() { require.NoError(t, ex.Close()) }()
	pr, pw := pipe(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 64<<10/16*4) // 256 KiB: more than the pipe holds
	var got []byte
	err = runTask(t, ex, func(tk *T) error {
		h := Spawn(tk, func(tk *T) (int, error) {
			total := 0
			for total < len(big) {
				n, err := tk.Write(pw, big[total:], CurrentPos)
				if err != nil {
					return total, err
				}
				total += n
			}
			return total, nil
		})
		buf := make([]byte, 10000)
		for len(got) < len(big) {
			n, err := tk.Read(pr, buf, CurrentPos)
			if err != nil {
				return err
			}
			got = append(got, buf[:n]...)
		}
		_, err := h.Join(tk)
		return err
	})
	require.NoError(t, err)
	require.Equal(t, big, got)

	// A read with nothing to read ends at its context's cancel.
	ctx, cancel := context.WithCancel(context.Background())
	rh := SpawnOn(ctx, ex, func(tk *T) (int, error) { return tk.Read(pr, make([]byte, 8), CurrentPos) })
	time.Sleep(20 * time.Millisecond)
	cancel()
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	_, err = rh.Wait(wctx)
	require.ErrorIs(t, err, context.Canceled)

	// The writer gone: EOF.
	require.NoError(t, unix.Close(pw))
	var n int
	err = runTask(t, ex, func(tk *T) error {
		var err error
		n, err = tk.Read(pr, make([]byte, 8), CurrentPos)
		return err
	})
	require.NoError(t, err)
	require.Zero(t, n)
}
