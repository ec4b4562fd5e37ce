//go:build linux

package goio

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/task"
)

// A ring Accept (task.WithRingConnWaits) whose ACCEPT is queued in the
// ring but not yet submitted when the listener closes: Close waits for
// it, so the ACCEPT never reaches the socket that takes the fd's number
// after close(2) (dup2 takes it here, as the next socket would by the
// lowest-number rule), and that socket keeps its pending connection. The
// Accept ends with net.ErrClosed.
func TestListenerCloseWaitsForRingAccept(t *testing.T) {
	rt, err := task.NewRuntime(1, append(backendOpts(), task.WithRingConnWaits())...)
	if errors.Is(err, uring.ErrUnsupported) {
		t.Skipf("io_uring unavailable: %v", err)
	}
	require.NoError(t, err)
	defer rt.Close()
	ex := rt.Executors()[0]
	if !ex.RingConnWaits() {
		t.Skip("the fallback backend has no ring waits")
	}
	ln, err := On(rt).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	fd := ln.Fd()

	// The executor's thread is held by a task (hold1) while the Accept's
	// task is queued, then by a second one (hold2) queued behind it: the
	// Accept's task runs in between, prepares its ACCEPT and parks, and
	// the executor, held again, does not submit it.
	hold1, hold2 := make(chan struct{}), make(chan struct{})
	release := func(c chan struct{}) {
		select {
		case <-c:
		default:
			close(c)
		}
	}
	defer release(hold1)
	defer release(hold2)
	holder := func(held, hold chan struct{}) func(*task.T) (struct{}, error) {
		return func(*task.T) (struct{}, error) {
			close(held)
			<-hold // blocks the executor's thread
			return struct{}{}, nil
		}
	}
	held1, held2 := make(chan struct{}), make(chan struct{})
	task.SpawnOn(context.Background(), ex, holder(held1, hold1))
	within(t, held1, "the first holder never ran")
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	// The Accept waits for its task: the task is queued.
	within(t, goroutineSeen(t, "goio.(*Listener).Accept", "task.(*Handle[...]).Wait"), "the Accept never spawned its task")
	task.SpawnOn(context.Background(), ex, holder(held2, hold2))
	release(hold1)
	within(t, held2, "the second holder never ran")

	closed := make(chan error, 1)
	go func() { closed <- ln.Close() }()
	// Close either returns with the ACCEPT still queued (it closed the
	// fd under it) or waits for the Accept in the fd guard.
	early := false
	select {
	case err := <-closed:
		require.NoError(t, err)
		early = true
	case <-goroutineSeen(t, "goio.(*Listener).", "fdguard.(*Guard).Close"):
	case <-time.After(hangGuard):
		t.Fatal("Close neither returned nor waited for the Accept")
	}
	if !early {
		release(hold2) // the Accept ends, cancelled; then Close closes the fd
		require.NoError(t, within(t, closed, "Close never returned"))
	}
	_, err = unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	require.ErrorIs(t, err, unix.EBADF, "Close returned with the fd open")

	// Another listening socket on the fd's number, with a connection
	// pending when the executor goes on.
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	if s != fd {
		require.NoError(t, unix.Dup3(s, fd, unix.O_CLOEXEC))
		require.NoError(t, unix.Close(s))
	}
	defer unix.Close(fd)
	require.NoError(t, unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	require.NoError(t, unix.Listen(fd, 8))
	sa, err := unix.Getsockname(fd)
	require.NoError(t, err)
	c, err := net.DialTCP("tcp", nil, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: sa.(*unix.SockaddrInet4).Port})
	require.NoError(t, err)
	defer c.Close()
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(pfd, int(hangGuard.Milliseconds()))
	require.NoError(t, err)
	require.Equal(t, 1, n, "the connection never reached the accept queue")
	release(hold2)

	err = within(t, accepted, "Accept never returned")
	// The Accept has ended: its ACCEPT, if any, is answered.
	require.NoError(t, unix.SetNonblock(fd, true))
	nfd, _, aerr := unix.Accept4(fd, unix.SOCK_CLOEXEC)
	if aerr == nil {
		require.NoError(t, unix.Close(nfd))
	}
	require.NoError(t, aerr, "the other socket's pending connection is gone (the closed listener's ACCEPT took it)")
	require.ErrorIs(t, err, net.ErrClosed)
	var op *net.OpError
	require.ErrorAs(t, err, &op)
	require.Equal(t, "accept", op.Op)
	require.ErrorIs(t, ln.Close(), net.ErrClosed, "a second Close")
}

// goroutineIn reports whether a goroutine's stack has every one of
// frames (each part of a function's name in the stack's text).
func goroutineIn(frames ...string) bool {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range strings.Split(string(buf), "\n\n") {
		all := true
		for _, f := range frames {
			all = all && strings.Contains(g, f)
		}
		if all {
			return true
		}
	}
	return false
}

// goroutineSeen returns a channel closed once a goroutine's stack has
// every one of frames (goroutineIn); it stops looking at the end of the
// test.
func goroutineSeen(t *testing.T, frames ...string) <-chan struct{} {
	seen, stop := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		for !goroutineIn(frames...) {
			select {
			case <-stop:
				return
			default:
				runtime.Gosched()
			}
		}
		close(seen)
	}()
	return seen
}

// Close from a task of the runtime: with task.WithRingConnWaits it would
// wait for the Accepts' tasks, so it returns task.ErrWouldDeadlock and
// the listener stays open and accepting; in the netpoller it closes.
func TestListenerCloseFromTask(t *testing.T) {
	rt := newRuntime(t, 1)
	ex := rt.Executors()[0]
	ln, err := On(rt).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, err = task.Run(context.Background(), ex, func(*task.T) (struct{}, error) { return struct{}{}, ln.Close() })
	if !ex.RingConnWaits() {
		require.NoError(t, err)
		require.ErrorIs(t, ln.Close(), net.ErrClosed)
		return
	}
	require.ErrorIs(t, err, task.ErrWouldDeadlock)
	var op *net.OpError
	require.ErrorAs(t, err, &op)
	require.Equal(t, "close", op.Op)
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	s, err := ln.Accept()
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, ln.Close())
	require.ErrorIs(t, ln.Close(), net.ErrClosed)
}
