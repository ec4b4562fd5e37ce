//go:build linux

package uring_test

import (
	"github.com/pure-uring/uring/tests/ringtest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
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

// PinBytes pins a slice's backing array for its request (nothing for an
// empty slice); several pins under one user_data go with one Release;
// releasing what holds no pin does nothing. A read into pinned slices,
// with GC running and the slices reachable only through the pins' map
// keys, reads the file's bytes.
func TestPinsPinBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	content := []byte("pinned bytes, read back")
	require.NoError(t, os.WriteFile(path, content, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()

	var pins uring.Pins
	pins.PinBytes(1, nil)
	pins.PinBytes(1, []byte{})
	require.Zero(t, pins.Len(), "an empty slice pins nothing")
	pins.Release(1)
	require.Zero(t, pins.Len())

	r := ringtest.New(t, 8)
	head, tail := make([]byte, 6), make([]byte, len(content)-6)
	for i, b := range [][]byte{head, tail} {
		s, err := r.GetSQE()
		require.NoError(t, err)
		require.NoError(t, sqe.Read(s, int(f.Fd()), b, int64(i*6)))
		s.UserData = 7
		pins.PinBytes(7, b)
	}
	require.Equal(t, 1, pins.Len(), "both slices under one user_data")
	_, err = r.Submit()
	require.NoError(t, err)
	runtime.GC()
	got := reapAll(t, r, 2)
	require.ElementsMatch(t, []int32{6, int32(len(content) - 6)}, []int32{got[0].Res, got[1].Res})
	require.Equal(t, content, append(head, tail...))
	pins.Release(7)
	require.Zero(t, pins.Len())
	pins.Release(7)
	require.Zero(t, pins.Len(), "a second Release does nothing")
}
