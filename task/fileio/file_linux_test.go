//go:build linux

package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/internal/testutil"
)

// ReadAt answers what *os.File's answers: the bytes, io.EOF at and past
// the end, an error for a negative offset; on Default's rings and on
// explicit ones.
func TestReadAtLikeOS(t *testing.T) {
	requireBackend(t)
	path, _ := patterned(t, t.TempDir(), 100, 10) // 1000 bytes
	of, err := os.Open(path)
	require.NoError(t, err)
	defer of.Close()
	for name, r := range map[string]*Rings{"default": Default(), "explicit": newRings(t, 2)} {
		t.Run(name, func(t *testing.T) {
			f, err := r.Open(path)
			require.NoError(t, err)
			defer f.Close()
			for _, c := range []struct {
				off int64
				n   int
			}{{0, 10}, {990, 10}, {995, 10}, {1000, 10}, {5000, 1}, {0, 1000}, {0, 2000}, {-1, 4}, {3, 0}} {
				want := make([]byte, c.n)
				got := make([]byte, c.n)
				wn, werr := of.ReadAt(want, c.off)
				gn, gerr := f.ReadAt(got, c.off)
				require.Equal(t, wn, gn, "ReadAt(%d bytes, %d)", c.n, c.off)
				require.Equal(t, want, got, "ReadAt(%d bytes, %d)", c.n, c.off)
				if werr == nil {
					require.NoError(t, gerr)
				} else {
					require.EqualError(t, gerr, werr.Error())
					require.Equal(t, errors.Is(werr, io.EOF), errors.Is(gerr, io.EOF))
				}
			}
		})
	}
}

// 128 goroutines read 4 KiB blocks at random through one set of rings:
// each read returns its own block's bytes.
func TestReadAtFromManyGoroutines(t *testing.T) {
	const block, blocks = 4096, 256
	path, data := patterned(t, t.TempDir(), block, blocks)
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprintf("rings=%d", n), func(t *testing.T) {
			f, err := newRings(t, n).Open(path)
			require.NoError(t, err)
			defer f.Close()
			readers(t, 128, 40, func(rng *rand.Rand, buf []byte) error {
				b := rng.IntN(blocks)
				if _, err := f.ReadAt(buf[:block], int64(b*block)); err != nil {
					return err
				}
				if string(buf[:block]) != string(data[b*block:(b+1)*block]) {
					return fmt.Errorf("block %d: wrong bytes", b)
				}
				return nil
			})
		})
	}
}

// readers runs g goroutines doing each k reads and fails on the first
// error.
func readers(t *testing.T, g, k int, read func(rng *rand.Rand, buf []byte) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, g)
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			buf := make([]byte, 4096)
			for range k {
				if err := read(rng, buf); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// O_DIRECT reads (no page-cache probe) and writes through the rings read
// back what was written.
func TestDirectReadWrite(t *testing.T) {
	dir := directDir(t)
	if dir == "" {
		t.Skip("no directory here takes O_DIRECT")
	}
	const block, blocks = 4096, 64
	path, data := patterned(t, dir, block, blocks)
	f, err := OpenFile(path, os.O_RDWR|syscall.O_DIRECT, 0)
	require.NoError(t, err)
	defer f.Close()
	if f.rings != nil {
		require.True(t, f.direct)
		require.False(t, f.nowaitRead.Load(), "O_DIRECT reads skip the page-cache probe")
	}
	buf := alignedBlock(t, block)
	readers(t, 16, 20, func(rng *rand.Rand, _ []byte) error {
		b := rng.IntN(blocks)
		buf := alignedBlock(t, block)
		if _, err := f.ReadAt(buf, int64(b*block)); err != nil {
			return err
		}
		if string(buf) != string(data[b*block:(b+1)*block]) {
			return fmt.Errorf("block %d: wrong bytes", b)
		}
		return nil
	})
	for i := range buf {
		buf[i] = 0xa5
	}
	n, err := f.WriteAt(buf, 7*block)
	require.NoError(t, err)
	require.Equal(t, block, n)
	back, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, buf, back[7*block:8*block])
	require.Equal(t, data[:7*block], back[:7*block])
}

// alignedBlock is n bytes at a page-aligned address, as O_DIRECT needs:
// an anonymous mapping, unmapped at the end of the test.
func alignedBlock(t *testing.T, n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		panic(err)
	}
	t.Cleanup(func() { _ = unix.Munmap(b) })
	return b
}

// WriteAt answers what *os.File's answers: the bytes land, a negative
// offset and an O_APPEND file are refused with os's errors.
func TestWriteAtLikeOS(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w")
	f, err := Create(path)
	require.NoError(t, err)
	n, err := f.WriteAt([]byte("hello"), 3)
	require.NoError(t, err)
	require.Equal(t, 5, n)
	_, err = f.WriteAt([]byte("x"), -1)
	var pe *os.PathError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "writeat", pe.Op)
	require.NoError(t, f.Close())
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, []byte("\x00\x00\x00hello"), got)

	af, err := OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer af.Close()
	of, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer of.Close()
	_, oerr := of.WriteAt([]byte("y"), 0)
	_, ferr := af.WriteAt([]byte("y"), 0)
	require.Error(t, ferr)
	require.EqualError(t, ferr, oerr.Error())

	// O_DSYNC: the writes go through a ring (the page-cache probe refuses them) and land.
	sf, err := OpenFile(filepath.Join(dir, "dsync"), os.O_RDWR|os.O_CREATE|syscall.O_DSYNC, 0o600)
	require.NoError(t, err)
	defer sf.Close()
	for i := range 8 {
		n, err := sf.WriteAt([]byte{byte('a' + i)}, int64(i))
		require.NoError(t, err)
		require.Equal(t, 1, n)
	}
	back := make([]byte, 8)
	_, err = sf.ReadAt(back, 0)
	require.NoError(t, err)
	require.Equal(t, "abcdefgh", string(back))
}

// Errors are os's: a missing file is an *os.PathError that os.IsNotExist
// and errors.Is(err, fs.ErrNotExist) recognise.
func TestOpenErrorsLikeOS(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	_, err := Open(missing)
	var pe *os.PathError
	require.ErrorAs(t, err, &pe)
	require.True(t, os.IsNotExist(err))
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = ReadFile(missing)
	require.True(t, os.IsNotExist(err))
	_, err = NewRings(0, 8)
	require.ErrorContains(t, err, "n = 0")
	_, err = NewRings(1, 0)
	require.ErrorContains(t, err, "entries = 0")
	require.Nil(t, NewFile(nil))
	var nilFile *File
	_, err = nilFile.ReadAt(make([]byte, 1), 0)
	require.ErrorIs(t, err, os.ErrInvalid)
	require.ErrorIs(t, nilFile.Close(), os.ErrInvalid)
}

// ReadFile and WriteFile round-trip, and ReadFile reads a file that
// reports no size (procfs) to its end, as os.ReadFile does.
func TestReadFileWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rw")
	data := make([]byte, 300_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	require.NoError(t, WriteFile(path, data, 0o640))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640)&^umask(), fi.Mode().Perm())
	got, err := ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, data, got)
	require.NoError(t, WriteFile(path, []byte("short"), 0o600))
	got, err = ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "short", string(got), "WriteFile truncates")

	want, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	got, err = ReadFile("/proc/self/status")
	require.NoError(t, err)
	require.Equal(t, string(want[:20]), string(got[:20]))
	require.Greater(t, len(got), 100)
}

func umask() os.FileMode {
	m := unix.Umask(0)
	unix.Umask(m)
	return os.FileMode(m)
}

// Deadlines are os's: a pollable file (a FIFO) times out with
// os.ErrDeadlineExceeded, a regular file has none (os.ErrNoDeadline).
func TestDeadlinesLikeOS(t *testing.T) {
	dir := t.TempDir()
	reg, err := Create(filepath.Join(dir, "reg"))
	require.NoError(t, err)
	defer reg.Close()
	require.ErrorIs(t, reg.SetDeadline(time.Now()), os.ErrNoDeadline)

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, unix.Mkfifo(fifo, 0o600))
	f, err := OpenFile(fifo, os.O_RDWR, 0) // O_RDWR: the open does not wait for a writer
	require.NoError(t, err)
	defer f.Close()
	require.Nil(t, f.rings, "a FIFO is os's")
	require.NoError(t, f.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	_, err = f.Read(make([]byte, 1))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
}

// Close with a read waiting on a FIFO returns, and the read returns an
// error wrapping os.ErrClosed, as os's; a second Close and calls after
// Close are os.ErrClosed.
func TestCloseEndsPollableRead(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, unix.Mkfifo(fifo, 0o600))
	f, err := OpenFile(fifo, os.O_RDWR, 0)
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() {
		_, err := f.Read(make([]byte, 1))
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond) // let the read wait (the outcome is the same if it has not yet)
	require.NoError(t, f.Close())
	select {
	case err := <-errc:
		require.ErrorIs(t, err, os.ErrClosed)
	case <-time.After(time.Minute):
		t.Fatal("the read did not return after Close")
	}
	require.ErrorIs(t, f.Close(), os.ErrClosed)
	_, err = f.Read(make([]byte, 1))
	require.ErrorIs(t, err, os.ErrClosed)
}

// On a regular file: reads in flight when Close comes complete (their
// bytes are right) or fail with os.ErrClosed, never anything else; Close
// releases the fd; calls after it and a second Close are os.ErrClosed.
func TestCloseWithReadsInFlight(t *testing.T) {
	const block, blocks = 4096, 64
	path, data := patterned(t, t.TempDir(), block, blocks)
	for round := range 20 {
		f, err := newRings(t, 2).Open(path)
		require.NoError(t, err)
		fd := f.fd
		var wg sync.WaitGroup
		errs := make(chan error, 32)
		start := make(chan struct{})
		for g := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, block)
				<-start
				for k := 0; ; k++ {
					b := (g + k) % blocks
					_, err := f.ReadAt(buf, int64(b*block))
					if errors.Is(err, os.ErrClosed) {
						return
					}
					if err != nil {
						errs <- err
						return
					}
					if string(buf) != string(data[b*block:(b+1)*block]) {
						errs <- fmt.Errorf("round %d block %d: wrong bytes", round, b)
						return
					}
				}
			}()
		}
		close(start)
		time.Sleep(time.Millisecond)
		require.NoError(t, f.Close())
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		if fd >= 0 {
			require.False(t, fdOpen(fd) && sameFile(t, fd, path), "the fd outlived Close")
		}
		_, err = f.ReadAt(make([]byte, 1), 0)
		require.ErrorIs(t, err, os.ErrClosed)
		_, err = f.WriteAt(make([]byte, 1), 0)
		require.ErrorIs(t, err, os.ErrClosed)
		require.ErrorIs(t, f.Close(), os.ErrClosed)
	}
}

// sameFile reports whether fd still names path (a number reused by
// another open does not).
func sameFile(t *testing.T, fd int, path string) bool {
	target, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	return err == nil && target == path
}

// After the rings close, files opened on them go on working on plain
// system calls, and Close releases their fd.
func TestFilesOutliveTheirRings(t *testing.T) {
	path, data := patterned(t, t.TempDir(), 512, 8)
	r, err := NewRings(1, 8)
	require.NoError(t, err)
	f, err := r.Open(path)
	require.NoError(t, err)
	buf := make([]byte, 512)
	_, err = f.ReadAt(buf, 512)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	require.ErrorIs(t, r.Close(), uring.ErrClosed)
	require.Error(t, r.Fallback())
	require.Zero(t, r.Len())
	for i := range 8 {
		_, err = f.ReadAt(buf, int64(i*512))
		require.NoError(t, err)
		require.Equal(t, data[i*512:(i+1)*512], buf)
	}
	ops := []ReadOp{{Buf: make([]byte, 512), Off: 0}, {Buf: make([]byte, 512), Off: 1024}}
	require.NoError(t, f.ReadAtBatch(ops))
	require.Equal(t, data[1024:1536], ops[1].Buf)
	fd := f.fd
	require.NoError(t, f.Close())
	if fd >= 0 {
		require.False(t, sameFile(t, fd, path), "the fd outlived Close")
	}
}

// A buffered file's reads try the page cache first (preadv2 with
// RWF_NOWAIT); a page it dropped is refused there and read through the
// ring. Both give the file's bytes, and the file keeps trying the cache.
func TestCachedReadsMissToTheRing(t *testing.T) {
	dir := droppableDir(t)
	if dir == "" {
		t.Skip("no directory here on a block device, whose page cache can be dropped")
	}
	const block, blocks = 4096, 1024
	path, data := patterned(t, dir, block, blocks)
	f, err := Open(path)
	require.NoError(t, err)
	defer f.Close()
	if f.rings == nil {
		t.Skip("on plain calls: no io_uring for this process")
	}
	if !f.nowaitRead.Load() {
		t.Skip("the kernel has no RWF_NOWAIT reads for this file system")
	}
	buf := make([]byte, block)
	readAll := func() {
		for b := 0; b < blocks; b++ {
			n, err := f.ReadAt(buf, int64(b*block))
			require.NoError(t, err)
			require.Equal(t, block, n)
			require.Equal(t, data[b*block:(b+1)*block], buf, "block %d", b)
		}
	}
	readAll() // just written: every page is in the cache

	fd := int(f.Fd())
	require.NoError(t, unix.Fdatasync(fd))
	require.NoError(t, unix.Fadvise(fd, 0, 0, unix.FADV_RANDOM)) // no readahead: each read brings in its own page
	require.NoError(t, unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED))
	_, err = fdio.PreadCached(fd, buf, int64((blocks-1)*block))
	require.Equal(t, unix.EAGAIN, err, "a dropped page is refused by the cache")
	readAll() // the misses went to the ring
	require.True(t, f.nowaitRead.Load())
	n, err := fdio.PreadCached(fd, buf, int64((blocks-1)*block))
	require.NoError(t, err, "the ring's read brought the page back")
	require.Equal(t, block, n)
}

// O_DIRECT writes are plain pwrite calls while at most ringWriteDepth are
// in flight on the Rings, and go through a ring beyond that; both land.
func TestDirectWritesTakeTheRingOnlyWhenDeep(t *testing.T) {
	dir := directDir(t)
	if dir == "" {
		t.Skip("no directory here takes O_DIRECT")
	}
	r := newRings(t, 1)
	if r.Fallback() != nil {
		t.Skip("no rings here:", r.Fallback())
	}
	const block, blocks = 4096, 16
	path, data := patterned(t, dir, block, blocks)
	of, err := os.OpenFile(path, os.O_RDWR|syscall.O_DIRECT, 0)
	require.NoError(t, err)
	f := r.NewFile(of)
	defer f.Close()
	buf := alignedBlock(t, block)
	write := func(b int, fill byte) {
		for i := range buf {
			buf[i] = fill
		}
		n, err := f.WriteAt(buf, int64(b*block))
		require.NoError(t, err)
		require.Equal(t, block, n)
		copy(data[b*block:], buf)
	}
	for b := 0; b < 4; b++ {
		write(b, 0x10+byte(b))
	}
	require.Zero(t, r.ringWrites.Load(), "one writer: plain pwrite")
	require.Zero(t, r.directWrites.Load())
	// As if ringWriteDepth other writes were in flight.
	r.directWrites.Add(ringWriteDepth)
	for b := 4; b < 8; b++ {
		write(b, 0x20+byte(b))
	}
	r.directWrites.Add(-ringWriteDepth)
	require.Equal(t, uint64(4), r.ringWrites.Load(), "deep: through the ring")
	require.Zero(t, r.directWrites.Load())
	back, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, data, back)
}

// Every call answers what *os.File's answers, for a directory and five
// open modes, through a second Close (testutil.FileCallsLikeOS). An
// empty ReadAt or WriteAt after Close failed where os's returns 0, nil.
func TestFileCallsLikeOS(t *testing.T) {
	testutil.FileCallsLikeOS(t, func(name string, flags int) (testutil.File, error) {
		return OpenFile(name, flags, 0)
	})
}
