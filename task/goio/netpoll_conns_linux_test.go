//go:build linux

package goio

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/task"
)

// holdExecutor keeps ex's thread busy until the test ends.
func holdExecutor(t *testing.T, ex *task.Executor) {
	t.Helper()
	release, held := make(chan struct{}), make(chan struct{})
	go func() { _ = ex.Do(func() { close(held); <-release }) }()
	<-held
	t.Cleanup(func() { close(release) }) // before the runtime's own Close (LIFO)
}

// Accept, Dial, Write, Read and Close of the runtime's TCP conns run on
// the caller's goroutine and wait in Go's netpoller, as net's do: they
// complete while the runtime's only executor is held busy. With
// WithRingConnWaits each would wait for the executor, so that backend's
// run checks the default (io_uring, netpoller waits) instead.
func TestNetpollConnsNeedNoExecutor(t *testing.T) {
	opts := backendOpts()
	if os.Getenv(backendEnv) == ringConnsBackend {
		opts = nil
	}
	rt, err := task.NewRuntime(1, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close()) })
	ln, err := On(rt).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	holdExecutor(t, rt.Executors()[0])
	type result struct {
		got string
		err error
	}
	done := make(chan result, 1)
	go func() {
		accepted := make(chan net.Conn, 1)
		go func() {
			s, _ := ln.Accept()
			accepted <- s
		}()
		c, err := On(rt).Dial(context.Background(), "tcp", ln.Addr().String())
		if err != nil {
			done <- result{err: err}
			return
		}
		s := <-accepted
		if s == nil {
			c.Close()
			done <- result{err: errors.New("accept failed")}
			return
		}
		b := make([]byte, 4)
		_, err = c.Write([]byte("ping"))
		if err == nil {
			_, err = io.ReadFull(s, b)
		}
		err = errors.Join(err, c.Close(), s.Close())
		done <- result{string(b), err}
	}()
	r := within(t, done, "a conn operation waited for the busy executor")
	require.NoError(t, r.err)
	require.Equal(t, "ping", r.got)
}

// A Dial waiting for its connect (in the netpoller, or the ring with
// WithRingConnWaits) ends with net.ErrClosed when the runtime closes, as
// the runtime's other sockets do.
func TestDialEndsAtRuntimeClose(t *testing.T) {
	ln := fullListener(t)
	rt, err := task.NewRuntime(1, backendOpts()...)
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() {
		c, err := On(rt).Dial(context.Background(), "tcp", ln.Addr().String())
		if c != nil {
			c.Close()
		}
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond) // the connect is waiting (or about to)
	require.NoError(t, rt.Close())
	err = within(t, errc, "Runtime.Close did not end the Dial")
	require.ErrorIs(t, err, net.ErrClosed)
	var oe *net.OpError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "dial", oe.Op)
}
