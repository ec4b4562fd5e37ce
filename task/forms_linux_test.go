//go:build linux

package task

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

func TestFileForms(t *testing.T) {
	ex := newExec(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "a")
	var st unix.Statx_t
	gotV := [][]byte{make([]byte, 3), make([]byte, 4)}
	err := runTask(t, ex, func(tk *T) error {
		fd, err := tk.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if n, err := tk.Writev(fd, [][]byte{[]byte("abc"), []byte("defg")}, 0); err != nil || n != 7 {
			return errf("writev %d %v", n, err)
		}
		if n, err := tk.Readv(fd, gotV, 0); err != nil || n != 7 {
			return errf("readv %d %v", n, err)
		}
		if err := tk.Fsync(fd, sys.FsyncDatasync); err != nil {
			return err
		}
		if err := tk.Fallocate(fd, 0, 0, 8192); err != nil {
			return err
		}
		if err := tk.Statx(unix.AT_FDCWD, path, 0, unix.STATX_SIZE, &st); err != nil {
			return err
		}
		if err := tk.Close(fd); err != nil {
			return err
		}
		// MKDIRAT is 5.15: older kernels get the directory from os.Mkdir
		// (the mkdirat subtest below covers the op where it exists).
		if uring.CheckOp(sys.OpMkdirat) == nil {
			if err := tk.Mkdirat(unix.AT_FDCWD, filepath.Join(dir, "d"), 0o755); err != nil {
				return err
			}
		} else if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
			return err
		}
		if err := tk.Renameat(unix.AT_FDCWD, path, unix.AT_FDCWD, filepath.Join(dir, "d", "b"), 0); err != nil {
			return err
		}
		if err := tk.Unlinkat(unix.AT_FDCWD, filepath.Join(dir, "d", "b"), 0); err != nil {
			return err
		}
		return tk.Unlinkat(unix.AT_FDCWD, filepath.Join(dir, "d"), unix.AT_REMOVEDIR)
	})
	require.NoError(t, err)
	require.Equal(t, "abc", string(gotV[0]))
	require.Equal(t, "defg", string(gotV[1]))
	require.Equal(t, uint64(8192), st.Size)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents)
	t.Run("mkdirat", func(t *testing.T) {
		testutil.Require(t, uring.CheckOp(sys.OpMkdirat))
		d := filepath.Join(dir, "m")
		require.NoError(t, runTask(t, ex, func(tk *T) error { return tk.Mkdirat(unix.AT_FDCWD, d, 0o700) }))
		fi, err := os.Stat(d)
		require.NoError(t, err)
		require.True(t, fi.IsDir())
		require.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	})
	// A bad path argument is rejected before any SQE.
	err = runTask(t, ex, func(tk *T) error { _, err := tk.Open("a\x00b", 0, 0); return err })
	require.ErrorIs(t, err, unix.EINVAL)
	require.ErrorContains(t, err, "task: Openat: path has a NUL at byte 1")
}

func TestFixedBufferAndFile(t *testing.T) {
	requireRing(t)
	ex := newExec(t)
	r, w := pipe(t)
	mem := make([]byte, 4096)
	err := runTask(t, ex, func(tk *T) error {
		fd := tk.Executor().Ring().Fd()
		iov := []unix.Iovec{{Base: &mem[0]}}
		iov[0].SetLen(len(mem))
		if _, err := sys.RegisterSlice(fd, sys.RegisterBuffers, iov); err != nil {
			return err
		}
		if _, err := sys.RegisterSlice(fd, sys.RegisterFiles, []int32{int32(r), int32(w)}); err != nil {
			return err
		}
		copy(mem, "fixed")
		if n, err := tk.WriteFixed(w, mem[:5], CurrentPos, 0); err != nil || n != 5 {
			return errf("write_fixed %d %v", n, err)
		}
		if n, err := tk.ReadFixed(r, mem[100:105], CurrentPos, 0); err != nil || n != 5 {
			return errf("read_fixed %d %v", n, err)
		}
		// A buffer outside the registered one: EFAULT, with the hint.
		heap := make([]byte, 5)
		if _, err := tk.WriteFixed(w, heap, CurrentPos, 0); !errors.Is(err, unix.EFAULT) ||
			!strings.Contains(err.Error(), "not inside the registered buffer") {
			return errf("write_fixed of a heap buffer: %v, want EFAULT with the hint", err)
		}
		if n, err := tk.WriteSlot(sqe.Slot(1), []byte("slot!"), CurrentPos); err != nil || n != 5 {
			return errf("write slot %d %v", n, err)
		}
		got := make([]byte, 5)
		if n, err := tk.ReadSlot(sqe.Slot(0), got, CurrentPos); err != nil || n != 5 || string(got) != "slot!" {
			return errf("read slot %d %v %q", n, err, got)
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, "fixed", string(mem[100:105]))
}

func TestNetForms(t *testing.T) {
	ex := newExec(t)
	hasSocket, hasSendZC := uring.CheckOp(sys.OpSocket) == nil, uring.CheckOp(sys.OpSendZC) == nil
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	lf, err := ln.(*net.TCPListener).File()
	require.NoError(t, err)
	defer lf.Close()
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	var peer netip.AddrPort
	got := make([]byte, 64)
	var msgN int
	var from netip.AddrPort
	err = runTask(t, ex, func(tk *T) error {
		srv := Spawn(tk, func(tk *T) (string, error) {
			cfd, p, err := tk.Accept(int(lf.Fd()), 0)
			if err != nil {
				return "", err
			}
			peer = p
			defer tk.Close(cfd)
			buf := make([]byte, 64)
			total := 0
			for total < 15 {
				n, err := tk.Recv(cfd, buf[total:], 0)
				if err != nil || n == 0 {
					return "", errf("recv %d %v", n, err)
				}
				total += n
			}
			if _, err := tk.Send(cfd, buf[:total], 0); err != nil {
				return "", err
			}
			return string(buf[:total]), nil
		})
		// SOCKET is 5.19 and SEND_ZC 6.0: older kernels get the socket from
		// the syscall and a plain SEND (TestNetFormsNewOps covers the ops).
		var fd int
		var err error
		if hasSocket {
			fd, err = tk.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
		} else {
			fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		}
		if err != nil {
			return err
		}
		defer tk.Close(fd)
		if err := tk.Connect(fd, addr); err != nil {
			return err
		}
		if _, err := tk.Send(fd, []byte("hello"), 0); err != nil {
			return err
		}
		if hasSendZC {
			_, err = tk.SendZC(fd, []byte("zc-ok"), 0)
		} else {
			_, err = tk.Send(fd, []byte("zc-ok"), 0)
		}
		if err != nil {
			return err
		}
		if _, err := tk.Sendmsg(fd, [][]byte{[]byte("ms"), []byte("g!!")}, nil, netip.AddrPort{}, 0); err != nil {
			return err
		}
		s, err := srv.Join(tk)
		if err != nil {
			return err
		}
		if s != "hellozc-okmsg!!" {
			return errf("server got %q", s)
		}
		if ev, err := tk.Poll(fd, unix.POLLIN); err != nil || ev&unix.POLLIN == 0 {
			return errf("poll %x %v", ev, err)
		}
		msgN, _, _, from, err = tk.Recvmsg(fd, [][]byte{got}, nil, 0)
		if err != nil {
			return err
		}
		return tk.Shutdown(fd, unix.SHUT_RDWR)
	})
	require.NoError(t, err)
	require.Equal(t, "hellozc-okmsg!!", string(got[:msgN]))
	require.True(t, peer.Addr().IsLoopback(), "peer %v", peer)
	_ = from
}

// TestNetFormsNewOps: SOCKET (5.19) and SEND_ZC (6.0), where the kernel
// has them (TestNetForms uses them too, and falls back without them).
func TestNetFormsNewOps(t *testing.T) {
	testutil.Require(t, uring.CheckOp(sys.OpSocket))
	testutil.Require(t, uring.CheckOp(sys.OpSendZC))
	ex := newExec(t)
	a, b := testutil.TCPPair(t) // zero-copy sends need TCP or UDP
	var fd, n int
	require.NoError(t, runTask(t, ex, func(tk *T) error {
		var err error
		if fd, err = tk.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0); err != nil {
			return err
		}
		n, err = tk.SendZC(a, []byte("zero-copy"), 0)
		return err
	}))
	defer unix.Close(fd)
	st, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	require.NoError(t, err)
	require.Equal(t, unix.SOCK_DGRAM, st)
	require.Equal(t, 9, n)
	got := make([]byte, 16)
	m, err := unix.Read(b, got)
	require.NoError(t, err)
	require.Equal(t, "zero-copy", string(got[:m]))
}

func TestSplice(t *testing.T) {
	ex := newExec(t)
	r1, w1 := pipe(t)
	r2, w2 := pipe(t)
	got := make([]byte, 6)
	err := runTask(t, ex, func(tk *T) error {
		if _, err := tk.Write(w1, []byte("splice"), CurrentPos); err != nil {
			return err
		}
		if n, err := tk.Splice(r1, -1, w2, -1, 6, 0); err != nil || n != 6 {
			return errf("splice %d %v", n, err)
		}
		_, err := tk.Read(r2, got, CurrentPos)
		return err
	})
	require.NoError(t, err)
	require.Equal(t, "splice", string(got))
}

func TestAwaitGeneric(t *testing.T) {
	requireRing(t)
	testutil.Require(t, uring.CheckCapability(uring.CapNopInjectResult))
	ex := newExec(t)
	var res int32
	err := runTask(t, ex, func(tk *T) error {
		var err error
		res, _, err = tk.Await(func(s *sys.SQE) {
			s.Opcode, s.Fd, s.OpFlags, s.Len = sys.OpNop, -1, sys.NopInjectResult, 42
		})
		return err
	})
	require.NoError(t, err)
	require.Equal(t, int32(42), res)
}

// TestPipePingPong100k runs 100k tasks (10k with -short) in pairs over
// pipes and checks that no slot, task or fd is left behind.
func TestPipePingPong100k(t *testing.T) {
	tasks := 100_000
	if testing.Short() {
		tasks = 10_000
	}
	ex := newExec(t, WithEntries(4096))
	const pipes = 64
	rs, ws := make([]int, pipes), make([]int, pipes)
	for i := range rs {
		rs[i], ws[i] = pipe(t)
	}
	start := time.Now()
	total := 0
	err := runTask(t, ex, func(tk *T) error {
		for done := 0; done < tasks; done += 2 * pipes {
			hs := make([]*Handle[int], 0, 2*pipes)
			for i := 0; i < pipes; i++ {
				hs = append(hs, Spawn(tk, func(tk *T) (int, error) {
					b := make([]byte, 1)
					n, err := tk.Read(rs[i], b, CurrentPos)
					return int(b[0]) * n, err
				}))
				hs = append(hs, Spawn(tk, func(tk *T) (int, error) {
					return tk.Write(ws[i], []byte{1}, CurrentPos)
				}))
			}
			for _, h := range hs {
				v, err := h.Join(tk)
				if err != nil {
					return err
				}
				total += v
			}
		}
		return nil
	})
	require.NoError(t, err)
	rounds := (tasks + 2*pipes - 1) / (2 * pipes)
	require.Equal(t, rounds*pipes*2, total)
	require.Zero(t, onExec(t, ex, func() int { return ex.busy() }), "slots in use")
	require.Zero(t, onExec(t, ex, func() int { return ex.nlive }), "live tasks")
	t.Logf("%d tasks in %v", rounds*pipes*2, time.Since(start))
}

func errf(format string, args ...any) error { return &testErr{format, args} }

type testErr struct {
	f string
	a []any
}

func (e *testErr) Error() string { return sprintf(e.f, e.a...) }

// Arguments are checked by the builders of package sqe; the error names
// the task method and the argument, and the executor is unharmed.
func TestBuilderArgErrors(t *testing.T) {
	ex := newExec(t)
	r, _ := pipe(t)
	cases := []struct {
		name string
		call func(tk *T) error
		want string
	}{
		{"read fd", func(tk *T) error { _, err := tk.Read(-1, make([]byte, 1), 0); return err }, "task: Read: fd = -1 is negative"},
		{"read off", func(tk *T) error { _, err := tk.Read(r, make([]byte, 1), -2); return err }, "task: Read: off = -2 is below -1"},
		{"fsync flags", func(tk *T) error { return tk.Fsync(r, 0x80) }, "task: Fsync: flags"},
		{"shutdown how", func(tk *T) error { return tk.Shutdown(r, 7) }, "task: Shutdown: how = 7"},
		{"rename newpath", func(tk *T) error { return tk.Renameat(unix.AT_FDCWD, "a", unix.AT_FDCWD, "b\x00", 0) }, "task: Renameat: newpath has a NUL"},
		{"readv count", func(tk *T) error { _, err := tk.Readv(r, make([][]byte, 1025), 0); return err }, "task: Readv: len(bufs) = 1025 exceeds IOV_MAX"},
		{"link", func(tk *T) error { _, err := tk.Link(NopOp(), ReadOp(-3, nil, 0)); return err }, "task: Link: fd = -3 is negative"},
	}
	for _, c := range cases {
		err := runTask(t, ex, c.call)
		require.ErrorIs(t, err, unix.EINVAL, c.name)
		var ae *ArgError
		require.ErrorAs(t, err, &ae, c.name)
		require.ErrorContains(t, err, c.want, c.name)
	}
	// Every rejected op gave its slot back.
	require.NoError(t, runTask(t, ex, func(tk *T) error { return tk.Nop() }))
	require.Zero(t, onExec(t, ex, func() int { return ex.busy() }))
}
