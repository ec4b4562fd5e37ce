//go:build linux

package goio

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/nettest"

	"github.com/pure-uring/uring/task"
)

// listenFunc and dialFunc are one side's way to listen and to dial: the
// runtime's, or net's.
type (
	listenFunc func(network, address string) (net.Listener, error)
	dialFunc   func(ctx context.Context, network, address string) (net.Conn, error)
)

func rtListen(rt *task.Runtime) listenFunc {
	return func(network, address string) (net.Listener, error) { return On(rt).Listen(network, address) }
}

func netListen(network, address string) (net.Listener, error) { return net.Listen(network, address) }

var netDial dialFunc = (&net.Dialer{}).DialContext

// pairOf connects a dialer to a listener and returns the dialed and the
// accepted end, closed at the end of the test.
func pairOf(t *testing.T, listen listenFunc, dial dialFunc, network string) (dialed, accepted net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	ln, err := listen(network, addr)
	require.NoError(t, err)
	defer ln.Close()
	type res struct {
		c   net.Conn
		err error
	}
	ac := make(chan res, 1)
	go func() {
		c, err := ln.Accept()
		ac <- res{c, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := dial(ctx, network, ln.Addr().String())
	require.NoError(t, err)
	a := <-ac
	require.NoError(t, a.err)
	t.Cleanup(func() { d.Close(); a.c.Close() })
	return d, a.c
}

// pairings are every combination the adapters must hold up in: the
// runtime on both ends, and on either end against net.
func pairings(rt *task.Runtime) []struct {
	name   string
	listen listenFunc
	dial   dialFunc
} {
	return []struct {
		name   string
		listen listenFunc
		dial   dialFunc
	}{
		{"runtime-runtime", rtListen(rt), On(rt).Dial},
		{"net-dials-runtime", rtListen(rt), netDial},
		{"runtime-dials-net", netListen, On(rt).Dial},
	}
}

// nettest.TestConn (golang.org/x/net's conformance suite for net.Conn:
// basic I/O, ping-pong, racing reads and writes, every kind of deadline,
// close while blocked, concurrent methods) on every pairing of the
// runtime's Conn with itself and with net's, over TCP and Unix sockets,
// each side tested as the first and as the second end.
func TestNettestConn(t *testing.T) {
	rt := newRuntime(t, 2)
	for _, network := range []string{"tcp", "unix"} {
		for _, p := range pairings(rt) {
			for _, swap := range []bool{false, true} {
				name := network + "/" + p.name
				if swap {
					name += "/accepted-first"
				}
				t.Run(name, func(t *testing.T) {
					nettest.TestConn(t, func() (c1, c2 net.Conn, stop func(), err error) {
						d, a := pairOf(t, p.listen, p.dial, network)
						stop = func() { d.Close(); a.Close() }
						if swap {
							return a, d, stop, nil
						}
						return d, a, stop, nil
					})
				})
			}
		}
	}
}
