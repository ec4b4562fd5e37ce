//go:build linux

package goio

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

func TestRuntimeBlockingCalls(t *testing.T) {
	rt := newRuntime(t, 2)
	path := filepath.Join(t.TempDir(), "f")
	ctx := context.Background()
	fd, err := On(rt).Open(ctx, path, unix.O_RDWR|unix.O_CREAT, 0o600)
	require.NoError(t, err)
	n, err := On(rt).Pwrite(ctx, fd, []byte("runtime"), 3)
	require.NoError(t, err)
	require.Equal(t, 7, n)
	buf := make([]byte, 10)
	n, err = On(rt).Pread(ctx, fd, buf, 0)
	require.NoError(t, err)
	require.Equal(t, "\x00\x00\x00runtime", string(buf[:n]))
	// pread(2)'s answers, not io.ReaderAt's: short, then 0 at the end.
	n, err = On(rt).Pread(ctx, fd, buf, 8)
	require.NoError(t, err)
	require.Equal(t, "me", string(buf[:n]))
	n, err = On(rt).Pread(ctx, fd, buf, 10)
	require.NoError(t, err)
	require.Zero(t, n)
	require.NoError(t, On(rt).Fsync(ctx, fd))
	require.NoError(t, On(rt).CloseFd(ctx, fd))

	// A blocked call returns with ctx's error once ctx is cancelled.
	r, _ := pipe(t)
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = On(rt).Pread(cctx, r, buf, task.CurrentPos)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestFileAdapter(t *testing.T) {
	rt := newRuntime(t, 1)
	path := filepath.Join(t.TempDir(), "f")
	f, err := On(rt).OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	var _ io.ReaderAt = f
	var _ io.WriterAt = f
	var _ io.ReadWriteCloser = f
	_, err = io.WriteString(f, "hello, ")
	require.NoError(t, err)
	_, err = f.WriteAt([]byte("world"), 7)
	require.NoError(t, err)
	b := make([]byte, 12)
	n, err := f.ReadAt(b, 0)
	require.NoError(t, err)
	require.Equal(t, "hello, world", string(b[:n]))
	n, err = f.ReadAt(b, 7)
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, "world", string(b[:n]))
	_, err = f.Seek(0, io.SeekStart)
	require.NoError(t, err)
	all, err := io.ReadAll(f)
	require.NoError(t, err)
	require.Equal(t, "hello, world", string(all))
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
	_, err = f.ReadAt(b, 0)
	require.ErrorIs(t, err, os.ErrClosed)
}

func TestNetHTTPOnAdapter(t *testing.T) {
	rt := newRuntime(t, 2)
	ln, err := On(rt).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "Hello, %s%s", r.URL.Path[1:], body)
	}), ReadTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	url := "http://" + ln.Addr().String()
	client := &http.Client{Timeout: 5 * time.Second}
	for i := 0; i < 20; i++ {
		resp, err := client.Post(url+"/World", "text/plain", strings.NewReader(fmt.Sprint(i)))
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("Hello, World%d", i), string(body))
	}
	if curl, err := exec.LookPath("curl"); err == nil {
		out, err := exec.Command(curl, "-s", "--max-time", "5", url+"/curl").Output()
		require.NoError(t, err)
		require.Equal(t, "Hello, curl", string(out))
	}
	// A client through the runtime's Dial too.
	tr := &http.Transport{DialContext: On(rt).Dial}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(url + "/dial")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "Hello, dial", string(body))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, srv.Shutdown(ctx))
	require.ErrorIs(t, <-done, http.ErrServerClosed)
}

func TestConnDeadlineAndClose(t *testing.T) {
	rt := newRuntime(t, 1)
	ln, err := On(rt).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			time.Sleep(time.Second)
			c.Close()
		}
	}()
	c, err := ln.Accept()
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	_, err = c.Read(make([]byte, 1))
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Timeout())
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)

	require.NoError(t, c.SetReadDeadline(time.Time{}))
	errc := make(chan error, 1)
	go func() { _, err := c.Read(make([]byte, 1)); errc <- err }()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, c.Close())
	require.ErrorIs(t, <-errc, net.ErrClosed)
}

// TestEnvOpenPathError: Env.Open's error is os.Open's form, an
// *os.PathError with the path and the bare errno, so os.IsNotExist holds.
func TestEnvOpenPathError(t *testing.T) {
	rt := newRuntime(t, 1)
	missing := filepath.Join(t.TempDir(), "missing")
	fd, err := On(rt).Open(context.Background(), missing, unix.O_RDONLY, 0)
	require.Equal(t, -1, fd)
	require.True(t, os.IsNotExist(err), "%v", err)
	require.ErrorIs(t, err, fs.ErrNotExist)
	var pe *os.PathError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, &os.PathError{Op: "open", Path: missing, Err: unix.ENOENT}, pe)
	_, oserr := os.Open(missing)
	require.Equal(t, oserr.Error(), err.Error(), "the same text as os.Open's")
}

// A task accepts on Listener.Fd beside the Listener's own Accept: each
// gets a connection a net.Dial made, and the fd is the listener's (its
// Close closes it).
func TestListenerFdForTasks(t *testing.T) {
	rt := newRuntime(t, 1)
	ln, err := On(rt).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	fd := ln.Fd()
	require.GreaterOrEqual(t, fd, 0)
	accepted := task.SpawnOn(context.Background(), rt.NextExecutor(), func(t *task.T) (int, error) {
		nfd, _, err := t.Accept(fd, 0)
		if err != nil {
			return 0, err
		}
		defer t.Close(nfd)
		var b [4]byte
		n, err := t.Recv(nfd, b[:], unix.MSG_WAITALL)
		if err == nil && string(b[:n]) != "task" {
			err = fmt.Errorf("task got %q, want %q", b[:n], "task")
		}
		return n, err
	})
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte("task"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	n, err := accepted.Wait(ctx)
	require.NoError(t, err)
	require.Equal(t, 4, n)

	// The Listener's Accept still works on the same socket.
	go func() {
		if c2, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			defer c2.Close()
			_, _ = c2.Write([]byte("own"))
			_, _ = io.ReadAll(c2)
		}
	}()
	conn, err := ln.Accept()
	require.NoError(t, err)
	var b [3]byte
	_, err = io.ReadFull(conn, b[:])
	require.NoError(t, err)
	require.Equal(t, "own", string(b[:]))
	require.NoError(t, conn.Close())

	require.NoError(t, ln.Close())
	_, err = unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	require.ErrorIs(t, err, unix.EBADF, "Close leaves the listener's fd open")
}
