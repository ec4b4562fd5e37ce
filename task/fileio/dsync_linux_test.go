//go:build linux

package fileio

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Goroutines writing an O_SYNC or O_DSYNC file at once: every byte lands,
// every flush begun ended and nothing is left waiting, and Close closes
// the second descriptor.
func TestSyncFileWritesLand(t *testing.T) {
	for _, flag := range []int{os.O_SYNC, syscall.O_DSYNC} {
		t.Run(fmt.Sprintf("flag=%#x", flag), func(t *testing.T) {
			r := newRings(t, 1)
			if r.Fallback() != nil {
				t.Skip("no rings here:", r.Fallback())
			}
			path := filepath.Join(t.TempDir(), "dsync")
			of, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|flag, 0o600)
			require.NoError(t, err)
			f := r.NewFile(of)
			require.NotNil(t, f.group, "a synchronous file groups its writes")
			require.Equal(t, flag == os.O_SYNC, f.group.fullSync)
			const writers, each, block = 16, 8, 512
			want := make([]byte, writers*each*block)
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						b := make([]byte, block)
						for k := range b {
							b[k] = byte(w*each + i + k)
						}
						off := (w*each + i) * block
						copy(want[off:], b)
						n, err := f.WriteAt(b, int64(off))
						if err != nil || n != block {
							t.Errorf("WriteAt at %d: %d, %v", off, n, err)
						}
					}
				}()
			}
			wg.Wait()
			g := f.group
			fd2 := g.fd
			require.Zero(t, g.writes.Load())
			require.Zero(t, g.waiters)
			require.Empty(t, g.failed)
			require.Equal(t, g.started, g.completed)
			require.NoError(t, f.Close())
			var st unix.Stat_t
			require.Equal(t, unix.EBADF, unix.Fstat(fd2, &st), "Close closed the second descriptor")
			back, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, want, back)
		})
	}
}

// A lone write is the file's own synchronous pwrite: no flush.
func TestSyncFileLoneWriteFlushesNothing(t *testing.T) {
	r := newRings(t, 1)
	if r.Fallback() != nil {
		t.Skip("no rings here:", r.Fallback())
	}
	path := filepath.Join(t.TempDir(), "dsync")
	f, err := r.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_DSYNC, 0o600)
	require.NoError(t, err)
	defer f.Close()
	for i := range 4 {
		_, err = f.WriteAt([]byte("lone"), int64(4*i))
		require.NoError(t, err)
	}
	require.Zero(t, f.group.started)
	back, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "lonelonelonelone", string(back))
}

// Writes that come while a flush runs share the next one: n waiters, one
// more flush. A flush that fails reaches every write it covered, and no
// other; the record of it goes once all took it.
func TestSyncGroupSharesAndFailsFlushes(t *testing.T) {
	g := newSyncGroup(openSync(t), os.O_RDWR|syscall.O_DSYNC)
	require.NotNil(t, g)
	defer g.close()
	release := make(chan error)
	var flushes int
	g.flushFn = func() error { flushes++; return <-release }

	first := make(chan error, 1)
	go func() { first <- g.flushAfterNow() }()
	waitFor(t, g, func() bool { return g.running })
	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() { errs <- g.flushAfterNow() }()
	}
	waitFor(t, g, func() bool { return g.waiters == n })
	release <- nil // the first flush: began before the n came
	require.NoError(t, <-first)
	release <- unix.EIO // the one that covers the n
	for range n {
		require.Equal(t, unix.EIO, <-errs)
	}
	require.Equal(t, 2, flushes)
	g.mu.Lock()
	require.Empty(t, g.failed, "every write covered took the error")
	g.mu.Unlock()
	go func() { release <- nil }()
	require.NoError(t, g.flushAfterNow(), "a later flush that works")
	require.Equal(t, 3, flushes)
}

// A flush waits for the group's writes under way to join it: with one
// write between its pwrite and its wait, the writer about to flush waits
// for it, and one flush covers both (without the wait it would flush
// alone, and the other write would need a flush of its own).
func TestSyncGroupGathersWritesUnderWay(t *testing.T) {
	g, flushes := countingGroup(t, time.Hour) // the bound is the next test's

	g.writes.Add(2) // two writes in the group: one pwrite done, one under way
	first := make(chan error, 1)
	go func() { first <- g.flushAfterNow() }()
	waitFor(t, g, func() bool { return g.waiters == 1 || g.started > 0 })
	second := make(chan error, 1)
	go func() { second <- g.flushAfterNow() }()
	require.NoError(t, <-first)
	require.NoError(t, <-second)
	g.writes.Add(-2)
	require.Equal(t, 1, *flushes, "one flush for both writes")
}

// A write under way that never waits for a flush (one whose writer left
// between its pwrite and its wait, say) holds the next flush back no
// longer than the window.
func TestSyncGroupGatherEndsAtWindow(t *testing.T) {
	g, flushes := countingGroup(t, time.Millisecond)
	g.writes.Add(2)
	require.NoError(t, g.flushAfterNow())
	g.writes.Add(-2)
	require.Equal(t, 1, *flushes)
}

// A lone write under way (the file's own synchronous pwrite, which never
// waits for a flush) does not hold the next flush back at all.
func TestSyncGroupGatherSkipsLoneWrite(t *testing.T) {
	g, flushes := countingGroup(t, time.Hour)
	g.writes.Add(2) // the lone write and this one
	g.lone.Store(true)
	require.NoError(t, g.flushAfterNow())
	g.lone.Store(false)
	g.writes.Add(-2)
	require.Equal(t, 1, *flushes)
}

// countingGroup is a group on a temp file with the gather window given
// and a flush that only counts its calls.
func countingGroup(t *testing.T, window time.Duration) (*syncGroup, *int) {
	t.Helper()
	g := newSyncGroup(openSync(t), os.O_RDWR|syscall.O_DSYNC)
	require.NotNil(t, g)
	t.Cleanup(g.close)
	g.window = window
	flushes := new(int)
	g.flushFn = func() error { *flushes++; return nil }
	return g, flushes
}

// Only a synchronous, buffered, writable file gets a group.
func TestSyncGroupOnlyForSyncWritableFiles(t *testing.T) {
	fd := openSync(t)
	require.Nil(t, newSyncGroup(fd, os.O_RDWR))
	require.Nil(t, newSyncGroup(fd, os.O_RDONLY|syscall.O_DSYNC))
	require.Nil(t, newSyncGroup(fd, os.O_RDWR|syscall.O_DSYNC|syscall.O_DIRECT))
	require.Nil(t, newSyncGroup(-1, os.O_RDWR|syscall.O_DSYNC), "no file to open again")
	g := newSyncGroup(fd, os.O_WRONLY|syscall.O_DSYNC)
	require.NotNil(t, g)
	g.close()
}

func openSync(t *testing.T) int {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "g"), os.O_RDWR|os.O_CREATE|syscall.O_DSYNC, 0o600)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return int(f.Fd())
}

// waitFor waits, yielding, until cond holds under g.mu.
func waitFor(t *testing.T, g *syncGroup, cond func() bool) {
	t.Helper()
	for {
		g.mu.Lock()
		ok := cond()
		g.mu.Unlock()
		if ok {
			return
		}
		runtime.Gosched()
	}
}
