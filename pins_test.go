//go:build linux

package uring_test

import (
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

// TestPinsKeepUnreachableBuffersAlive reads into buffers the test drops
// right after submitting, with GC running; the Pins keep them alive until
// their CQEs, and the data is intact.
func TestPinsKeepUnreachableBuffersAlive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	content := make([]byte, 4096)
	for i := range content {
		content[i] = byte(i * 7)
	}
	require.NoError(t, os.WriteFile(path, content, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()

	r := ringtest.New(t, 64)
	var pins uring.Pins
	addrs := map[uint64]*[4096]byte{} // found again only through the CQE
	for round := 0; round < 20; round++ {
		for i := 0; i < 32; i++ {
			ud := uint64(round*32 + i)
			buf := new([4096]byte)
			s, err := r.GetSQE()
			require.NoError(t, err)
			s.Opcode, s.Fd, s.Addr, s.Len, s.UserData = sys.OpRead, int32(f.Fd()), sys.PtrAddr(buf), 4096, ud
			pins.Pin(ud, buf)
			addrs[ud] = buf
		}
		_, err := r.Submit()
		require.NoError(t, err)
		runtime.GC()
		got := reapAll(t, r, 32)
		for _, c := range got {
			require.Equal(t, int32(4096), c.Res)
			require.Equal(t, content, addrs[c.UserData][:])
			pins.Release(c.UserData)
			delete(addrs, c.UserData)
		}
	}
	require.Zero(t, pins.Len())
}
