//go:build linux

package task

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Reads into fresh buffers while the collector runs: every buffer stays
// referenced and pinned until its CQE, so the data is always right.
func TestGCStressReads(t *testing.T) {
	reads := 20000
	if testing.Short() {
		reads = 4000
	}
	ex := newExec(t)
	path := filepath.Join(t.TempDir(), "f")
	data := make([]byte, 1<<16)
	for i := range data {
		data[i] = byte(i * 7)
	}
	require.NoError(t, os.WriteFile(path, data, 0o600))
	var stop atomic.Bool
	go func() {
		for !stop.Load() {
			runtime.GC()
		}
	}()
	defer stop.Store(true)
	err := runTask(t, ex, func(tk *T) error {
		fd, err := tk.Open(path, unix.O_RDONLY, 0)
		if err != nil {
			return err
		}
		defer tk.Close(fd)
		const par = 16
		for done := 0; done < reads; done += par {
			hs := make([]*Handle[int], par)
			for i := range hs {
				off := int64((done + i) * 512 % (len(data) - 512))
				hs[i] = Spawn(tk, func(tk *T) (int, error) {
					buf := make([]byte, 512) // garbage as soon as the task returns
					n, err := tk.Read(fd, buf, off)
					if err == nil && !bytes.Equal(buf[:n], data[off:off+512]) {
						return n, errf("data mismatch at %d", off)
					}
					return n, err
				})
			}
			for _, h := range hs {
				if _, err := h.Join(tk); err != nil {
					return err
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
}
