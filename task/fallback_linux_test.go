//go:build linux

package task

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
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
