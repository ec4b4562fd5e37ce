//go:build linux

package fileio

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// ReadAt and WriteAt allocate nothing, through a ring and from the page
// cache alike.
func TestReadWriteAtAllocs(t *testing.T) {
	path, _ := patterned(t, t.TempDir(), 4096, 8)
	f, err := newRings(t, 1).OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	buf := make([]byte, 4096)
	for _, probe := range []bool{true, false} {
		if f.rings != nil {
			f.nowaitRead.Store(probe) // false: every read goes to the ring
		}
		read := testing.AllocsPerRun(200, func() {
			if _, err := f.ReadAt(buf, 4096); err != nil {
				panic(err)
			}
		})
		write := testing.AllocsPerRun(200, func() {
			if _, err := f.WriteAt(buf, 8192); err != nil {
				panic(err)
			}
		})
		require.Zero(t, read, "ReadAt (page-cache probe %v)", probe)
		require.Zero(t, write, "WriteAt (page-cache probe %v)", probe)
	}
}
