package goio

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/task"
)

// The tests in this file use only the API every OS has (Linux, macOS, the
// BSDs, Windows): CI compiles them for each, and on Linux they run on
// every backend.

// The goroutine adapters: a TCP echo through Listen and Dial, a UDP echo
// through ListenPacket, a file written, sought, statted and read back
// through OpenFile; after Runtime.Close the listener accepts no more.
func TestPortableAdapters(t *testing.T) {
	rt, err := task.NewRuntime(2, backendOpts()...)
	require.NoError(t, err)
	closed := false
	defer func() {
		if !closed {
			require.NoError(t, rt.Close())
		}
	}()

	ln, err := On(rt).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := On(rt).Dial(ctx, "tcp", ln.Addr().String())
	require.NoError(t, err)
	msg := bytes.Repeat([]byte("portable "), 10000)
	go func() { _, _ = c.Write(msg) }()
	back := make([]byte, len(msg))
	_, err = io.ReadFull(c, back)
	require.NoError(t, err)
	require.Equal(t, msg, back)
	require.Equal(t, ln.Addr().String(), c.RemoteAddr().String())
	require.NoError(t, c.Close())

	pc, err := On(rt).ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer pc.Close()
	peer, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer peer.Close()
	_, err = pc.WriteTo([]byte("ping"), peer.LocalAddr())
	require.NoError(t, err)
	buf := make([]byte, 16)
	require.NoError(t, peer.SetReadDeadline(time.Now().Add(30*time.Second)))
	n, from, err := peer.ReadFrom(buf)
	require.NoError(t, err)
	require.Equal(t, "ping", string(buf[:n]))
	require.Equal(t, pc.LocalAddr().String(), from.String())

	path := filepath.Join(t.TempDir(), "f")
	f, err := On(rt).OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	_, err = f.Write([]byte("hello, file"))
	require.NoError(t, err)
	end, err := f.Seek(-4, io.SeekEnd)
	require.NoError(t, err)
	require.Equal(t, int64(7), end)
	tail := make([]byte, 4)
	_, err = io.ReadFull(f, tail)
	require.NoError(t, err)
	require.Equal(t, "file", string(tail))
	fi, err := f.Stat()
	require.NoError(t, err)
	require.Equal(t, int64(11), fi.Size())
	require.Equal(t, path, f.Name())

	require.NoError(t, f.Close())

	// Runtime.Close ends the listener left open.
	closed = true
	require.NoError(t, rt.Close())
	_, err = ln.Accept()
	require.Error(t, err)
}
