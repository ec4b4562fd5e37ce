//go:build linux

package fileio

import (
	"os"
	"syscall"
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

// WriteAt of an O_DSYNC file allocates nothing, alone (its own pwrite)
// and in a group (the page cache and a shared flush).
func TestSyncWriteAtAllocs(t *testing.T) {
	r := newRings(t, 1)
	if r.Fallback() != nil {
		t.Skip("no rings here:", r.Fallback())
	}
	path, _ := patterned(t, t.TempDir(), 4096, 8)
	f, err := r.OpenFile(path, os.O_RDWR|syscall.O_DSYNC, 0)
	require.NoError(t, err)
	defer f.Close()
	require.NotNil(t, f.group)
	buf := make([]byte, 4096)
	write := func() {
		if _, err := f.WriteAt(buf, 8192); err != nil {
			panic(err)
		}
	}
	require.Zero(t, testing.AllocsPerRun(50, write), "alone")
	f.group.writes.Add(1) // as if another write were in flight
	defer f.group.writes.Add(-1)
	started := f.group.started
	require.Zero(t, testing.AllocsPerRun(50, write), "in a group")
	require.Greater(t, f.group.started, started, "the group path flushed")
}
