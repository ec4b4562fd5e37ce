//go:build linux

package goio

import (
	"bytes"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

// connPair returns an adapter Conn accepted on rt and the Go client end.
func connPair(t *testing.T, rt *task.Runtime) (net.Conn, net.Conn) {
	ln, err := On(rt).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	cc := make(chan net.Conn, 1)
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			cc <- nil
			return
		}
		cc <- c
	}()
	s, err := ln.Accept()
	require.NoError(t, err)
	peer := <-cc
	require.NotNil(t, peer)
	t.Cleanup(func() { s.Close(); peer.Close() })
	return s, peer
}

func TestConnReadWrite(t *testing.T) {
	s, peer := connPair(t, newRuntime(t, 1))
	msg := bytes.Repeat([]byte("0123456789"), 100_000) // more than the socket buffers
	go func() { _, _ = peer.Write(msg) }()
	got := make([]byte, len(msg))
	_, err := io.ReadFull(s, got)
	require.NoError(t, err)
	require.Equal(t, msg, got)

	done := make(chan error, 1)
	go func() {
		b := make([]byte, len(msg))
		_, err := io.ReadFull(peer, b)
		if err == nil && !bytes.Equal(b, msg) {
			err = io.ErrUnexpectedEOF
		}
		done <- err
	}()
	n, err := s.Write(msg)
	require.NoError(t, err)
	require.Equal(t, len(msg), n)
	require.NoError(t, <-done)

	require.NoError(t, peer.Close())
	_, err = s.Read(got)
	require.ErrorIs(t, err, io.EOF)
}

// A deadline moved later while a Read waits keeps it waiting; moved into
// the past, it unblocks it at once.
func TestConnDeadlineChangedInFlight(t *testing.T) {
	s, peer := connPair(t, newRuntime(t, 1))
	res := make(chan error, 1)
	buf := make([]byte, 4)
	// A Read waits with a deadline d away; the deadline moves 5 s away
	// before d passes, then d passes: the Read must go on until the data
	// comes. Only a move that returned before the first deadline proves
	// it; on a machine too loaded for that the round runs again with twice
	// the room (the data is read either way).
	for d := 30 * time.Millisecond; ; d *= 2 {
		require.Less(t, d, time.Minute, "never moved a deadline before it passed")
		first := time.Now().Add(d)
		require.NoError(t, s.SetReadDeadline(first))
		go func() {
			n, err := s.Read(buf)
			if err == nil && string(buf[:n]) != "late" {
				err = io.ErrUnexpectedEOF
			}
			res <- err
		}()
		time.Sleep(d / 3)
		require.NoError(t, s.SetReadDeadline(time.Now().Add(5*time.Second)))
		movedInTime := time.Now().Before(first)
		time.Sleep(d + 20*time.Millisecond) // past the first deadline
		_, err := peer.Write([]byte("late"))
		require.NoError(t, err)
		err = <-res
		if movedInTime {
			require.NoError(t, err, "the Read ended at the deadline it had before the move")
			break
		}
		if err != nil { // it may have ended at the first deadline: take the data
			require.ErrorIs(t, err, os.ErrDeadlineExceeded)
			require.NoError(t, s.SetReadDeadline(time.Time{}))
			n, err := io.ReadFull(s, buf)
			require.NoError(t, err)
			require.Equal(t, "late", string(buf[:n]))
		}
	}

	// An hour away first, so that only the move can end the Read.
	require.NoError(t, s.SetReadDeadline(time.Now().Add(time.Hour)))
	go func() { _, err := s.Read(buf); res <- err }()
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, s.SetReadDeadline(time.Unix(1, 0))) // net/http's aLongTimeAgo
	require.ErrorIs(t, within(t, res, "a deadline moved into the past left the Read waiting"), os.ErrDeadlineExceeded)

	// Cleared: reads work again.
	require.NoError(t, s.SetReadDeadline(time.Time{}))
	_, err := peer.Write([]byte("more"))
	require.NoError(t, err)
	n, err := s.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "more", string(buf[:n]))
}

// Close unblocks a Write stuck on a full socket and a Read at once.
func TestConnCloseUnblocksWriteAndRead(t *testing.T) {
	s, _ := connPair(t, newRuntime(t, 1))
	werr := make(chan error, 1)
	rerr := make(chan error, 1)
	go func() { _, err := s.Write(make([]byte, 64<<20)); werr <- err }()
	go func() { _, err := s.Read(make([]byte, 16)); rerr <- err }()
	time.Sleep(30 * time.Millisecond)
	require.NoError(t, s.Close())
	require.ErrorIs(t, <-werr, net.ErrClosed)
	require.ErrorIs(t, <-rerr, net.ErrClosed)
	_, err := s.Write([]byte("x"))
	require.ErrorIs(t, err, net.ErrClosed)
	require.ErrorIs(t, s.Close(), net.ErrClosed)
}

// A write deadline on a full socket fails the Write with a timeout.
func TestConnWriteDeadline(t *testing.T) {
	s, _ := connPair(t, newRuntime(t, 1))
	require.NoError(t, s.SetWriteDeadline(time.Now().Add(20*time.Millisecond)))
	n, err := s.Write(make([]byte, 64<<20))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.Less(t, n, 64<<20)
}

// Closing the runtime fails a Read in flight with net.ErrClosed.
func TestConnRuntimeClose(t *testing.T) {
	rt := newRuntime(t, 1)
	s, _ := connPair(t, rt)
	rerr := make(chan error, 1)
	go func() { _, err := s.Read(make([]byte, 16)); rerr <- err }()
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, rt.Close())
	require.ErrorIs(t, <-rerr, net.ErrClosed)
	_, err := s.Read(make([]byte, 16))
	require.ErrorIs(t, err, net.ErrClosed)
}

// A Read and a Write through the adapter allocate nothing.
func TestConnAllocs(t *testing.T) {
	s, peer := connPair(t, newRuntime(t, 1))
	b := make([]byte, 64)
	pb := make([]byte, 64)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := s.Write(b); err != nil {
			panic(err)
		}
		if _, err := io.ReadFull(peer, pb); err != nil {
			panic(err)
		}
		if _, err := peer.Write(pb); err != nil {
			panic(err)
		}
		if _, err := io.ReadFull(s, b); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs)
}

// Data already in the socket is read (and a Write with room is sent) in
// the caller's goroutine: both complete while the executor is busy.
func TestConnDirectPath(t *testing.T) {
	s, peer := connPair(t, newRuntime(t, 1))
	c := s.(*Conn)
	_, err := peer.Write([]byte("ping"))
	require.NoError(t, err)
	time.Sleep(5 * time.Millisecond) // let loopback deliver it
	hold, held := make(chan struct{}), make(chan struct{})
	go func() { _ = c.ex.Do(func() { close(held); <-hold }) }()
	<-held
	buf := make([]byte, 16)
	n, err := s.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "ping", string(buf[:n]))
	n, err = s.Write([]byte("pong"))
	require.NoError(t, err)
	require.Equal(t, 4, n)
	close(hold)
	n, err = io.ReadFull(peer, buf[:4])
	require.NoError(t, err)
	require.Equal(t, "pong", string(buf[:n]))

	// Nothing there: EAGAIN, the Read goes to the ring and waits.
	res := make(chan string, 1)
	go func() { n, _ := s.Read(buf); res <- string(buf[:n]) }()
	time.Sleep(10 * time.Millisecond)
	_, err = peer.Write([]byte("late"))
	require.NoError(t, err)
	require.Equal(t, "late", <-res)
}

// An expired deadline fails a Read without consuming data that is there.
func TestConnDirectDeadline(t *testing.T) {
	s, peer := connPair(t, newRuntime(t, 1))
	_, err := peer.Write([]byte("kept"))
	require.NoError(t, err)
	time.Sleep(5 * time.Millisecond)
	require.NoError(t, s.SetReadDeadline(time.Unix(1, 0)))
	buf := make([]byte, 16)
	_, err = s.Read(buf)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Timeout())
	require.NoError(t, s.SetWriteDeadline(time.Unix(1, 0)))
	_, err = s.Write([]byte("x"))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.NoError(t, s.SetDeadline(time.Time{}))
	n, err := s.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "kept", string(buf[:n]))
}

// A reset connection reads as ECONNRESET, a shut-down one as io.EOF, on
// the direct path as on the ring path.
func TestConnDirectReset(t *testing.T) {
	s, peer := connPair(t, newRuntime(t, 1))
	require.NoError(t, peer.(*net.TCPConn).SetLinger(0))
	require.NoError(t, peer.Close()) // RST
	time.Sleep(5 * time.Millisecond)
	_, err := s.Read(make([]byte, 16))
	require.ErrorIs(t, err, unix.ECONNRESET)

	s, peer = connPair(t, newRuntime(t, 1))
	_, err = peer.Write([]byte("bye"))
	require.NoError(t, err)
	require.NoError(t, peer.Close())
	time.Sleep(5 * time.Millisecond)
	b, err := io.ReadAll(s)
	require.NoError(t, err)
	require.Equal(t, "bye", string(b))
}

// Close racing Reads and Writes that hit the socket directly: no error
// other than net.ErrClosed, and (under -race) no race on the fd.
func TestConnDirectCloseRace(t *testing.T) {
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	rt := newRuntime(t, 1)
	for range rounds {
		s, peer := connPair(t, rt)
		go func() { _, _ = io.Copy(peer, peer) }() // echo: data keeps arriving
		done := make(chan error, 2)
		go func() {
			b := make([]byte, 512)
			for {
				if _, err := s.Write(b); err != nil {
					done <- err
					return
				}
			}
		}()
		go func() {
			b := make([]byte, 512)
			for {
				if _, err := s.Read(b); err != nil {
					done <- err
					return
				}
			}
		}()
		time.Sleep(time.Millisecond)
		require.NoError(t, s.Close())
		require.ErrorIs(t, <-done, net.ErrClosed)
		require.ErrorIs(t, <-done, net.ErrClosed)
		peer.Close()
	}
}
