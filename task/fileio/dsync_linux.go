//go:build linux

package fileio

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// syncGroup makes WriteAt of a file opened with O_DSYNC or O_SYNC (not
// O_DIRECT) a group commit: a write that is alone is the file's own
// synchronous pwrite(2), as os's; writes that overlap go into the page
// cache through a second descriptor of the same file without the flag,
// and each then waits for a flush (fdatasync(2), fsync(2) for O_SYNC)
// that began after its write returned — one flush for all the writes
// that came in while the one before it ran. Each WriteAt returns once its
// bytes are as durable as the flag promises, as before; a file written by
// many goroutines pays one device flush per group instead of one per
// write.
type syncGroup struct {
	fd       int           // the file without O_DSYNC / O_SYNC (close-on-exec)
	fullSync bool          // O_SYNC: fsync, the metadata too
	writes   atomic.Int32  // WriteAt calls in write
	lone     atomic.Bool   // one of them is a lone write (at most one is)
	flushFn  func() error  // g.flush; a test's stand-in
	window   time.Duration // gatherWindow; a test's longer one

	mu        sync.Mutex
	cond      sync.Cond
	started   uint64 // flushes begun
	completed uint64 // flushes ended, in order: only one runs at a time
	running   bool
	waiters   int          // writes waiting for the next flush to begin
	failed    []flushError // failed flushes (rare) whose writes have not all looked
}

// gatherWindow bounds how long a flush waits for the writes under way to
// join it: a few pwrite(2)s into the page cache, against a device flush of
// 100s of µs (measured on a virtio disk, 16 writers: 15 writes per flush
// against 8 without the wait, and 1.3-1.6x the writes per second).
const gatherWindow = 50 * time.Microsecond

// flushError is a failed flush, kept until each write it covered took it.
type flushError struct {
	gen  uint64
	err  error
	left int
}

// newSyncGroup opens the second descriptor of fd's file, through
// /proc/self/fd, with fd's access mode; nil when the file is not
// synchronous, is O_DIRECT or read-only, or cannot be opened again (no
// /proc, its permissions changed): then every write is the plain one.
func newSyncGroup(fd, flags int) *syncGroup {
	if flags&unix.O_DSYNC == 0 || flags&unix.O_DIRECT != 0 || flags&unix.O_ACCMODE == unix.O_RDONLY {
		return nil
	}
	fd2, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), flags&unix.O_ACCMODE|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	g := &syncGroup{fd: fd2, fullSync: flags&unix.O_SYNC == unix.O_SYNC}
	g.cond.L = &g.mu
	g.flushFn = g.flush
	g.window = gatherWindow
	return g
}

// write is one write of up to len(b) bytes at off, durable when it
// returns without error: alone, the synchronous fd's own pwrite; with
// others in flight, a pwrite into the page cache and the group's flush.
func (g *syncGroup) write(syncFd int, b []byte, off int64) (int, error) {
	defer g.writes.Add(-1)
	if g.writes.Add(1) == 1 {
		g.lone.Store(true) // never a flush's: gathering does not wait for it
		n, err := ignoringEINTR(func() (int, error) { return unix.Pwrite(syncFd, b, off) })
		g.lone.Store(false)
		return n, err
	}
	n, err := ignoringEINTR(func() (int, error) { return unix.Pwrite(g.fd, b, off) })
	if err != nil || n <= 0 {
		return 0, err // nothing written: nothing to flush
	}
	if ferr := g.flushAfterNow(); ferr != nil {
		return 0, ferr // the bytes may not be on the device: none counted as written
	}
	return n, nil
}

// flushAfterNow returns once a flush that began after the call did has
// ended, with that flush's error. The caller whose turn it is runs it.
func (g *syncGroup) flushAfterNow() error {
	g.mu.Lock()
	want := g.started + 1 // the first flush to begin from now on
	g.waiters++
	var since time.Time
	for g.completed < want {
		if g.running {
			g.cond.Wait()
			since = time.Time{} // a new flush to gather for
			continue
		}
		if g.gathering(&since) {
			continue
		}
		g.running = true
		g.started++ // == want: nothing runs, so every flush begun has ended
		gen, covered := g.started, g.waiters
		g.waiters = 0
		g.mu.Unlock()
		err := g.flushFn()
		g.mu.Lock()
		g.running = false
		g.completed = gen
		if err != nil {
			g.failed = append(g.failed, flushError{gen, err, covered})
		}
		g.cond.Broadcast()
	}
	var err error
	for i := range g.failed {
		if f := &g.failed[i]; f.gen == want {
			err = f.err
			if f.left--; f.left == 0 {
				g.failed = append(g.failed[:i], g.failed[i+1:]...)
			}
			break
		}
	}
	g.mu.Unlock()
	return err
}

// gathering is the wait, before a flush begins, for the group's writes
// under way to join it (mu held; released meanwhile): a pwrite in
// progress, or a writer the last flush just released coming back with
// its next write. Without it the next flush would begin at once, with the
// writes that waited through the last one, and the released writers would
// wait a whole flush more: two half groups per flush instead of one. It
// yields until every write under way waits (a lone write's own
// synchronous pwrite never will, and does not count), at most
// gatherWindow since the first look; reports whether it waited.
func (g *syncGroup) gathering(since *time.Time) bool {
	under := int(g.writes.Load()) - g.waiters
	if g.lone.Load() {
		under--
	}
	if under <= 0 {
		return false
	}
	now := time.Now()
	if since.IsZero() {
		*since = now
	} else if now.Sub(*since) >= g.window {
		return false
	}
	g.mu.Unlock()
	runtime.Gosched()
	g.mu.Lock()
	return true
}

func (g *syncGroup) flush() error {
	for {
		var err error
		if g.fullSync {
			err = unix.Fsync(g.fd)
		} else {
			err = unix.Fdatasync(g.fd)
		}
		if err != unix.EINTR {
			return err
		}
	}
}

// close closes the second descriptor (once no write is in flight).
func (g *syncGroup) close() { _ = unix.Close(g.fd) }

// closeGroup closes f's second descriptor, if any (Close, once no call
// is in progress).
func (f *File) closeGroup() {
	if f.group != nil {
		f.group.close()
	}
}
