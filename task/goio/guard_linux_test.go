//go:build linux

package goio

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// File.Sync and Conn.CloseWrite go through the fd guard: after Close they
// fail with the closed error instead of reaching an fd number that may be
// another file's by then, and racing Close they never do.
func TestSyncAndCloseWriteGuarded(t *testing.T) {
	rt := newRuntime(t, 1)
	f, err := On(rt).OpenFile(filepath.Join(t.TempDir(), "f"), os.O_CREATE|os.O_RDWR, 0o600)
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
	require.ErrorIs(t, f.Sync(), os.ErrClosed)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	for range 50 {
		c, err := On(rt).Dial(context.Background(), "tcp", ln.Addr().String())
		require.NoError(t, err)
		var wg sync.WaitGroup
		wg.Add(2)
		var werr, cerr error
		go func() { defer wg.Done(); werr = c.(interface{ CloseWrite() error }).CloseWrite() }()
		go func() { defer wg.Done(); cerr = c.Close() }()
		wg.Wait()
		require.NoError(t, cerr)
		if werr != nil {
			require.ErrorIs(t, werr, net.ErrClosed)
		}
		require.ErrorIs(t, c.(interface{ CloseWrite() error }).CloseWrite(), net.ErrClosed)
	}
}
