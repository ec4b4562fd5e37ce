//go:build linux

package goio

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

// On gives one Env per runtime, and forgets it when the runtime closes;
// an Env of a closed runtime makes nothing that would outlive it.
func TestOnCachesPerRuntime(t *testing.T) {
	rt, err := task.NewRuntime(2, backendOpts()...)
	require.NoError(t, err)
	e := On(rt)
	require.Same(t, e, On(rt))
	other := newRuntime(t, 1)
	require.NotSame(t, e, On(other))
	require.Len(t, e.regs, 2)

	require.NoError(t, rt.Close())
	_, cached := envs.Load(rt)
	require.False(t, cached, "a closed runtime's Env is forgotten")
	e = On(rt)
	_, cached = envs.Load(rt)
	require.False(t, cached, "nor cached again")
	for _, r := range e.regs {
		require.False(t, r.add(nopCloser{}), "its registries refuse")
	}
	_, err = e.OpenFile(filepath.Join(t.TempDir(), "f"), os.O_CREATE|os.O_RDWR, 0o600)
	require.ErrorIs(t, err, task.ErrClosed)
	// No socket is made (and bound) first: the error names no address.
	_, err = e.Listen("tcp", "127.0.0.1:0")
	require.ErrorIs(t, err, net.ErrClosed)
	var oe *net.OpError
	require.ErrorAs(t, err, &oe)
	require.Nil(t, oe.Addr, "Listen after Close bound a socket: %v", err)
	_, err = e.ListenPacket("udp", "127.0.0.1:0")
	require.ErrorIs(t, err, net.ErrClosed)
	require.ErrorAs(t, err, &oe)
	require.Nil(t, oe.Addr, "ListenPacket after Close bound a socket: %v", err)
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// From a task of the runtime the Env's blocking calls, and a Conn's wait,
// return task.ErrWouldDeadlock instead of waiting for the executor they
// hold.
func TestEnvCallsFromTaskRefused(t *testing.T) {
	rt := newRuntime(t, 1)
	env := On(rt)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	c, err := env.Dial(context.Background(), "tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	s, err := ln.Accept()
	require.NoError(t, err)
	defer s.Close()
	path := filepath.Join(t.TempDir(), "f")
	ctx := context.Background()
	errs := map[string]error{}
	_, err = task.Run(ctx, rt.Executors()[0], func(*task.T) (struct{}, error) {
		var st unix.Statx_t
		_, errs["Env.Pread"] = env.Pread(ctx, 0, make([]byte, 1), 0)
		_, errs["Env.Open"] = env.Open(ctx, path, unix.O_RDWR|unix.O_CREAT, 0o600)
		errs["Env.CloseFd"] = env.CloseFd(ctx, -1)
		errs["Env.Statx"] = env.Statx(ctx, path, &st)
		_, errs["Env.OpenFile"] = env.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		_, errs["Env.Dial"] = env.Dial(ctx, "tcp", ln.Addr().String())
		if rt.Executors()[0].RingConnWaits() { // in the netpoller the Read would wait there
			_, errs["Conn.Read"] = c.Read(make([]byte, 1))
		}
		return struct{}{}, nil
	})
	require.NoError(t, err)
	for name, err := range errs {
		require.ErrorIs(t, err, task.ErrWouldDeadlock, name)
	}
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "nothing ran")
}
