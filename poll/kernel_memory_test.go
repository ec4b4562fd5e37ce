//go:build linux

package poll

import (
	"context"
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// tcpPair is a connected loopback TCP pair: the client's fd (closed with
// the test) and the server's conn.
func tcpPair(t *testing.T) (int, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	cc, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = cc.Close() })
	sc, err := ln.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { _ = sc.Close() })
	f, err := cc.(*net.TCPConn).File() // a blocking dup
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return int(f.Fd()), sc
}

// Loop.Do of a zero-copy send returns the send's byte count (the first
// CQE, with F_MORE), not its notification's 0, once the notification
// (the last CQE) has come.
func TestLoopDoSendZCReturnsFirstCQE(t *testing.T) {
	testutil.Require(t, uring.CheckOp(sys.OpSendZC))
	fd, peer := tcpPair(t)
	l := newLoop(t)
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte(i)
	}
	for range 3 {
		res, err := l.Do(context.Background(), func(q *sys.SQE) error { return sqe.SendZC(q, fd, buf, 0, 0) })
		require.NoError(t, err)
		require.Equal(t, int32(len(buf)), res.Res)
		require.True(t, res.More(), "the first CQE of a zero-copy send has F_MORE")
		require.Zero(t, res.Flags&sys.CQEFNotif)
		got := make([]byte, len(buf))
		_, err = io.ReadFull(peer, got)
		require.NoError(t, err)
		require.Equal(t, buf, got)
	}
}

// pipeWithBytes is a pipe holding data; its read end is non-blocking.
func pipeWithBytes(t *testing.T, data []byte) (r, w int) {
	t.Helper()
	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_CLOEXEC))
	t.Cleanup(func() { _ = unix.Close(p[0]); _ = unix.Close(p[1]) })
	n, err := unix.Write(p[1], data)
	require.NoError(t, err)
	require.Equal(t, len(data), n)
	return p[0], p[1]
}

// requirePipeHolds asserts that the pipe still holds exactly data: no
// ghost read consumed any of it.
func requirePipeHolds(t *testing.T, r int, data []byte) {
	t.Helper()
	require.NoError(t, unix.SetNonblock(r, true))
	got := make([]byte, 2*len(data))
	n, err := unix.Read(r, got)
	require.NoError(t, err)
	require.Equal(t, data, got[:n])
}

// A Shared.Do prep that panics after filling its SQE: the panic reaches
// the caller, the lock is released (the next Do works), and the
// half-filled SQE never reaches the kernel (the pipe's bytes are all
// still there).
func TestSharedPrepPanicLeavesNoSQE(t *testing.T) {
	s := newShared(t, 8)
	data := []byte("still here")
	r, _ := pipeWithBytes(t, data)
	buf := make([]byte, 64)
	require.PanicsWithValue(t, "prep boom", func() {
		_, _, _ = s.Do(func(q *sys.SQE) error {
			require.NoError(t, sqe.Read(q, r, buf, 0))
			panic("prep boom")
		}, buf)
	})
	done := make(chan int32, 1)
	go func() {
		res, _, err := s.Do(nopPrep, nil)
		if err != nil {
			res = -1
		}
		done <- res
	}()
	require.Equal(t, int32(0), within(t, done), "a Do after the panic")
	for range 3 { // more enters, which would submit a SQE left behind
		res, _, err := s.Do(nopPrep, nil)
		require.NoError(t, err)
		require.Zero(t, res)
	}
	requirePipeHolds(t, r, data)
}

// The same for DoBatch: the SQEs before the one whose prep panicked run
// and are waited for, then the panic reaches the caller.
func TestSharedDoBatchPrepPanicLeavesNoSQE(t *testing.T) {
	s := newShared(t, 8)
	data := []byte("still here")
	r, _ := pipeWithBytes(t, data)
	buf := make([]byte, 64)
	res := []int32{7, 7, 7}
	require.PanicsWithValue(t, "batch boom", func() {
		_ = s.DoBatch(res, func(i int, q *sys.SQE) error {
			if i == 0 {
				sqe.Nop(q)
				return nil
			}
			require.NoError(t, sqe.Read(q, r, buf, 0))
			panic("batch boom")
		}, nil)
	})
	require.Equal(t, []int32{0, 0, 0}, res)
	done := make(chan int32, 1)
	go func() {
		res, _, err := s.Do(nopPrep, nil)
		if err != nil {
			res = -1
		}
		done <- res
	}()
	require.Equal(t, int32(0), within(t, done), "a Do after the panic")
	requirePipeHolds(t, r, data)
}

// A Loop's prep that panics stops the loop (as a handler's panic does),
// but its half-filled SQE is not submitted by the shutdown: the pipe's
// bytes are all still there after Close, and Do fails with ErrClosed.
func TestLoopPrepPanicSubmitsNoGhost(t *testing.T) {
	for _, st := range []Strategy{Block, Spin} {
		t.Run(st.String(), func(t *testing.T) {
			l := newLoop(t, WithStrategy(st))
			data := []byte("still here")
			r, _ := pipeWithBytes(t, data)
			buf := make([]byte, 64)
			runtime.KeepAlive(buf)
			_, err := l.Do(context.Background(), func(q *sys.SQE) error {
				if err := sqe.Read(q, r, buf, 0); err != nil {
					return err
				}
				panic("loop prep boom")
			})
			require.ErrorIs(t, err, uring.ErrClosed)
			var he *HandlerError
			require.ErrorAs(t, l.Close(), &he, "Close returns what stopped the loop")
			require.ErrorIs(t, l.Close(), uring.ErrClosed, "a second Close")
			require.Equal(t, "loop prep boom", he.Value)
			requirePipeHolds(t, r, data)
		})
	}
}

// waitSubmitted waits until the kernel consumed every SQE handed out and
// the leader sleeps in the kernel.
func waitSubmitted(t *testing.T, s *Shared) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; runtime.Gosched() {
		s.mu.Lock()
		ok := s.sleeping && s.r.SQReady() == 0
		s.mu.Unlock()
		if ok {
			return
		}
		require.True(t, time.Now().Before(deadline), "the SQE was not submitted")
	}
}

// When the ring breaks with an operation the kernel took still running (a
// pipe read waiting for data), its caller gets the error but its memory
// stays pinned and referenced (the limbo) until Close closed the ring;
// an operation never submitted is released at once.
func TestSharedBrokenEnterKeepsSubmittedPinned(t *testing.T) {
	s, err := NewShared(8)
	require.NoError(t, err)
	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_CLOEXEC))
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	buf := make([]byte, 16)
	first := make(chan error, 1)
	go func() {
		_, _, err := s.Do(func(q *sys.SQE) error { return sqe.Read(q, p[0], buf, 0) }, buf)
		first <- err
	}()
	waitPending(t, s, 1)
	waitSubmitted(t, s)
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	require.NoError(t, unix.Dup2(int(null.Fd()), s.r.Fd()))
	_, _, err = s.Do(nopPrep, nil) // wakes the leader, whose next enter fails
	require.ErrorIs(t, err, unix.EOPNOTSUPP)
	select {
	case err := <-first:
		require.ErrorIs(t, err, unix.EOPNOTSUPP)
	case <-time.After(time.Minute):
		t.Fatal("the submitted read's Do did not return")
	}
	s.mu.Lock()
	require.Len(t, s.limbo, 1, "the submitted read stays pinned")
	op := s.limbo[0]
	require.True(t, op.limbo)
	require.Equal(t, uint32(1), op.gen.Load()&1, "its record is not reused")
	s.mu.Unlock()
	_ = s.Close() // the Ring's own teardown meets /dev/null: its error is not the point
	s.mu.Lock()
	require.Empty(t, s.limbo, "released once the ring is closed")
	s.mu.Unlock()
}
