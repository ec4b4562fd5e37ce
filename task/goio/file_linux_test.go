//go:build linux

package goio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/task"
)

// openBoth opens name with os and with the runtime, closed at the end.
func openBoth(t *testing.T, rt *task.Runtime, name string, flags int) (*os.File, *File) {
	t.Helper()
	of, err := os.OpenFile(name, flags, 0)
	require.NoError(t, err)
	t.Cleanup(func() { of.Close() })
	tf, err := On(rt).OpenFile(name, flags, 0)
	require.NoError(t, err)
	t.Cleanup(func() { tf.Close() })
	return of, tf
}

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// Seek with every whence, in and out of range, answers what *os.File's
// answers (the position, or an error that leaves it unchanged), and reads
// then start there.
func TestFileSeekLikeOS(t *testing.T) {
	rt := newRuntime(t, 1)
	data := []byte("0123456789abcdefghij")
	of, tf := openBoth(t, rt, writeTemp(t, data), os.O_RDONLY)
	steps := []struct {
		off    int64
		whence int
	}{
		{5, io.SeekStart}, {3, io.SeekCurrent}, {-2, io.SeekCurrent}, {-5, io.SeekEnd}, {0, io.SeekEnd},
		{10, io.SeekEnd}, {-100, io.SeekEnd}, {-1, io.SeekStart}, {-100, io.SeekCurrent}, {0, 7},
		{math.MaxInt64, io.SeekCurrent}, {4, io.SeekStart}, {0, io.SeekCurrent},
	}
	for _, s := range steps {
		opos, oerr := of.Seek(s.off, s.whence)
		tpos, terr := tf.Seek(s.off, s.whence)
		require.Equal(t, opos, tpos, "Seek(%d, %d)", s.off, s.whence)
		require.Equal(t, oerr == nil, terr == nil, "Seek(%d, %d): %v vs %v", s.off, s.whence, oerr, terr)
		if oerr != nil {
			var ope, tpe *os.PathError
			require.ErrorAs(t, oerr, &ope)
			require.ErrorAs(t, terr, &tpe)
			require.Equal(t, ope.Op, tpe.Op)
			require.Equal(t, ope.Path, tpe.Path)
			require.Equal(t, errors.Is(oerr, unix.EINVAL), errors.Is(terr, unix.EINVAL), "%v vs %v", oerr, terr)
		}
		ocur, _ := of.Seek(0, io.SeekCurrent)
		tcur, _ := tf.Seek(0, io.SeekCurrent)
		require.Equal(t, ocur, tcur, "position after Seek(%d, %d)", s.off, s.whence)
		ob, tb := make([]byte, 3), make([]byte, 3)
		on, oerr := of.Read(ob)
		tn, terr := tf.Read(tb)
		require.Equal(t, ob[:on], tb[:tn])
		require.Equal(t, oerr, terr)
		_, _ = of.Seek(ocur, io.SeekStart)
		_, _ = tf.Seek(tcur, io.SeekStart)
	}
	// The argument is named.
	_, err := tf.Seek(0, 7)
	var ae *task.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "whence", ae.Arg)
	_, err = tf.Seek(-1, io.SeekStart)
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "offset", ae.Arg)
}

// Stat, Truncate and Name answer what *os.File's answer, for a file and
// a directory; after Close every call fails with os.ErrClosed, as os's.
func TestFileStatTruncateNameLikeOS(t *testing.T) {
	rt := newRuntime(t, 1)
	p := writeTemp(t, bytes.Repeat([]byte("z"), 5000))
	of, tf := openBoth(t, rt, p, os.O_RDWR)
	require.Equal(t, of.Name(), tf.Name())
	check := func(of *os.File, tf *File) {
		t.Helper()
		ofi, oerr := of.Stat()
		tfi, terr := tf.Stat()
		require.NoError(t, oerr)
		require.NoError(t, terr)
		require.Equal(t, ofi.Name(), tfi.Name())
		require.Equal(t, ofi.Size(), tfi.Size())
		require.Equal(t, ofi.Mode(), tfi.Mode())
		require.Equal(t, ofi.ModTime(), tfi.ModTime())
		require.Equal(t, ofi.IsDir(), tfi.IsDir())
		require.Equal(t, ofi.Sys(), tfi.Sys())
	}
	check(of, tf)
	require.NoError(t, tf.Truncate(1234))
	check(of, tf)
	require.NoError(t, of.Truncate(99999))
	check(of, tf)
	n, err := tf.Seek(0, io.SeekEnd)
	require.NoError(t, err)
	require.EqualValues(t, 99999, n)

	oerr, terr := of.Truncate(-1), tf.Truncate(-1)
	require.ErrorIs(t, oerr, unix.EINVAL)
	require.ErrorIs(t, terr, unix.EINVAL)
	var ae *task.ArgError
	require.ErrorAs(t, terr, &ae)
	require.Equal(t, "size", ae.Arg)

	ro, tro := openBoth(t, rt, p, os.O_RDONLY)
	oerr, terr = ro.Truncate(1), tro.Truncate(1)
	require.Error(t, oerr)
	require.Equal(t, oerr.Error(), terr.Error(), "the kernel's answer, in os's words")

	dir := t.TempDir()
	for _, n := range []string{"b", "a", "c"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(n), 0o600))
	}
	od, td := openBoth(t, rt, dir, os.O_RDONLY)
	check(od, td)
	names := func(fis []os.FileInfo, err error) []string {
		require.NoError(t, err)
		var s []string
		for _, fi := range fis {
			s = append(s, fi.Name()+" "+fi.Mode().String())
		}
		sort.Strings(s)
		return s
	}
	require.Equal(t, names(od.Readdir(-1)), names(td.Readdir(-1)))
	ents, err := td.ReadDir(-1)
	require.NoError(t, err)
	require.Empty(t, ents, "the listing was read to its end")

	require.NoError(t, of.Close())
	require.NoError(t, tf.Close())
	for _, c := range []struct {
		name string
		o, t func() error
	}{
		{"Stat", func() error { _, err := of.Stat(); return err }, func() error { _, err := tf.Stat(); return err }},
		{"Seek", func() error { _, err := of.Seek(0, io.SeekEnd); return err }, func() error { _, err := tf.Seek(0, io.SeekEnd); return err }},
		{"Truncate", func() error { return of.Truncate(0) }, func() error { return tf.Truncate(0) }},
		{"Read", func() error { _, err := of.Read(make([]byte, 1)); return err }, func() error { _, err := tf.Read(make([]byte, 1)); return err }},
		{"Close", of.Close, tf.Close},
		{"Readdir", func() error { _, err := of.Readdir(1); return err }, func() error { _, err := tf.Readdir(1); return err }},
	} {
		oerr, terr := c.o(), c.t()
		require.Error(t, oerr, c.name)
		require.ErrorIs(t, terr, os.ErrClosed, c.name) // os's Readdir says "use of closed file"
		var ope, tpe *os.PathError
		require.ErrorAs(t, oerr, &ope)
		require.ErrorAs(t, terr, &tpe)
		require.Equal(t, ope.Path, tpe.Path)
	}
}

// dirFS serves a directory's files as *File (an http.FileSystem).
type dirFS struct {
	rt   *task.Runtime
	root string
}

func (d dirFS) Open(name string) (http.File, error) {
	return On(d.rt).OpenFile(filepath.Join(d.root, filepath.FromSlash(path.Clean("/"+name))), os.O_RDONLY, 0)
}

// http.ServeContent and http.FileServer serve a File as they serve an
// *os.File: whole (ServeContent used to answer 500 "seeker can't seek"),
// by ranges, HEAD, a directory listing, identical bytes and headers.
func TestFileServeContent(t *testing.T) {
	rt := newRuntime(t, 1)
	data := bytes.Repeat([]byte("0123456789"), 100_000)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), data, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "g.txt"), []byte("g"), 0o644))
	mt := time.Unix(1_700_000_000, 0)
	serveContent := func(open func() (io.ReadSeeker, error)) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, err := open()
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			defer f.(io.Closer).Close()
			http.ServeContent(w, r, "f.txt", mt, f)
		})
	}
	handlers := []http.Handler{
		serveContent(func() (io.ReadSeeker, error) { return os.Open(filepath.Join(dir, "f.txt")) }),
		serveContent(func() (io.ReadSeeker, error) { return On(rt).OpenFile(filepath.Join(dir, "f.txt"), os.O_RDONLY, 0) }),
		http.FileServer(http.Dir(dir)),
		http.FileServer(dirFS{rt, dir}),
	}
	requests := []struct {
		method, path, rng string
	}{
		{"GET", "/f.txt", ""}, {"GET", "/f.txt", "bytes=100-199"}, {"GET", "/f.txt", "bytes=-10"},
		{"GET", "/f.txt", "bytes=0-0,500-509"}, {"HEAD", "/f.txt", ""}, {"GET", "/f.txt", "bytes=2000000-"},
	}
	for _, rq := range requests {
		var want *httptest.ResponseRecorder
		for i, h := range handlers {
			if i == 2 && !strings.HasPrefix(rq.path, "/f") {
				continue
			}
			req := httptest.NewRequest(rq.method, rq.path, nil)
			if rq.rng != "" {
				req.Header.Set("Range", rq.rng)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if i%2 == 0 {
				want = rec
				continue
			}
			require.Equal(t, want.Code, rec.Code, "%s %s %s", rq.method, rq.path, rq.rng)
			hds := []string{"Content-Length", "Content-Range", "Content-Type"}
			if strings.Contains(rq.rng, ",") { // multipart: a random boundary
				require.Equal(t, want.Body.Len(), rec.Body.Len())
				require.Equal(t, bytes.Count(want.Body.Bytes(), []byte("0123456789")), bytes.Count(rec.Body.Bytes(), []byte("0123456789")))
				hds = hds[:2]
			} else {
				require.Equal(t, want.Body.Bytes(), rec.Body.Bytes(), "%s %s %s", rq.method, rq.path, rq.rng)
			}
			for _, hd := range hds {
				require.Equal(t, want.Header().Get(hd), rec.Header().Get(hd), hd)
			}
		}
	}
	for _, p := range []string{"/", "/sub/", "/sub/g.txt", "/missing"} {
		var bodies []string
		for _, h := range handlers[2:] {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
			bodies = append(bodies, rec.Result().Status+"\n"+rec.Body.String())
		}
		require.Equal(t, bodies[0], bodies[1], p)
	}
	var _ http.File = (*File)(nil)
	var _ fs.ReadDirFile = (*File)(nil)
}

// A File closed after its runtime's Close (an HTTP handler that finishes
// late) still closes its fd: the fd is gone from the process, and a second
// Close says os.ErrClosed.
func TestFileCloseAfterRuntimeClose(t *testing.T) {
	rt, err := task.NewRuntime(1, backendOpts()...)
	if errors.Is(err, uring.ErrUnsupported) {
		t.Skipf("io_uring unavailable: %v", err)
	}
	require.NoError(t, err)
	f, err := On(rt).OpenFile(writeTemp(t, []byte("late")), os.O_RDONLY, 0)
	require.NoError(t, err)
	fd := f.Fd()
	require.NoError(t, rt.Close())
	require.NoError(t, f.Close())
	_, err = unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	require.ErrorIs(t, err, unix.EBADF, "fd %d is still open after Close", fd)
	require.ErrorIs(t, f.Close(), os.ErrClosed)
}

// Concurrent Reads take the file's bytes one after another, each once, and
// concurrent Writes land one after another, as on an *os.File (read(2)
// and write(2) hold the kernel's position lock): Read took the position,
// let go of it while the read ran, and two Reads read the same bytes.
func TestFileConcurrentReadWriteMovePositionOnce(t *testing.T) {
	rt := newRuntime(t, 2)
	const chunk, chunks, readers = 512, 256, 8
	data := make([]byte, chunk*chunks)
	for i := range chunks {
		binary.BigEndian.PutUint32(data[i*chunk:], uint32(i))
	}
	_, tf := openBoth(t, rt, writeTemp(t, data), os.O_RDONLY)
	seen := make([]atomic.Int32, chunks)
	var total atomic.Int64
	var wg sync.WaitGroup
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := make([]byte, chunk)
			for {
				n, err := tf.Read(b)
				if err == io.EOF {
					return
				}
				if !assert.NoError(t, err) || !assert.Equal(t, chunk, n) {
					return
				}
				total.Add(int64(n))
				seen[binary.BigEndian.Uint32(b)].Add(1)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, int64(len(data)), total.Load())
	for i := range seen {
		require.Equal(t, int32(1), seen[i].Load(), "chunk %d read", i)
	}

	name := filepath.Join(t.TempDir(), "written")
	wf, err := On(rt).OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	defer wf.Close()
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := bytes.Repeat([]byte{byte('a' + g)}, chunk)
			for range chunks / readers {
				n, err := wf.Write(b)
				if !assert.NoError(t, err) || !assert.Equal(t, chunk, n) {
					return
				}
			}
		}()
	}
	wg.Wait()
	got, err := os.ReadFile(name)
	require.NoError(t, err)
	require.Equal(t, chunk*chunks, len(got), "no Write overwrote another")
	for i := 0; i < len(got); i += chunk {
		require.True(t, bytes.Equal(bytes.Repeat(got[i:i+1], chunk), got[i:i+chunk]), "chunk at %d is one Write's", i)
	}
	pos, err := wf.Seek(0, io.SeekCurrent)
	require.NoError(t, err)
	require.Equal(t, int64(chunk*chunks), pos)
}

// A file opened with O_APPEND behaves as *os.File's: Write appends and
// moves the offset to the end of what it wrote, also after a Seek back;
// WriteAt is refused with os's error and writes nothing. Write went to
// the offset (the kernel appended, but the offset stayed behind) and
// WriteAt appended where the caller asked for another place.
func TestFileAppendLikeOS(t *testing.T) {
	rt := newRuntime(t, 1)
	dir := t.TempDir()
	on, tn := filepath.Join(dir, "os"), filepath.Join(dir, "task")
	for _, p := range []string{on, tn} {
		require.NoError(t, os.WriteFile(p, []byte("0123456789"), 0o644))
	}
	of, err := os.OpenFile(on, os.O_RDWR|os.O_APPEND, 0)
	require.NoError(t, err)
	defer of.Close()
	tf, err := On(rt).OpenFile(tn, os.O_RDWR|os.O_APPEND, 0)
	require.NoError(t, err)
	defer tf.Close()
	type rws = interface {
		io.ReadWriteSeeker
		io.WriterAt
	}
	both := func(step string, fo func(f rws) (int64, error)) {
		t.Helper()
		ov, oerr := fo(of)
		tv, terr := fo(tf)
		require.Equal(t, ov, tv, step)
		if oerr == nil {
			require.NoError(t, terr, step)
		} else {
			require.EqualError(t, terr, oerr.Error(), step)
		}
		ocur, _ := of.Seek(0, io.SeekCurrent)
		tcur, _ := tf.Seek(0, io.SeekCurrent)
		require.Equal(t, ocur, tcur, "%s: the offset", step)
	}
	both("write", func(f rws) (int64, error) { n, err := f.Write([]byte("abcde")); return int64(n), err })
	both("seek", func(f rws) (int64, error) { return f.Seek(2, io.SeekStart) })
	both("read", func(f rws) (int64, error) { b := make([]byte, 3); n, err := f.Read(b); return int64(n), err })
	both("write after seek", func(f rws) (int64, error) { n, err := f.Write([]byte("XY")); return int64(n), err })
	both("writeat", func(f rws) (int64, error) { n, err := f.WriteAt([]byte("zz"), 1); return int64(n), err })
	og, err := os.ReadFile(on)
	require.NoError(t, err)
	tg, err := os.ReadFile(tn)
	require.NoError(t, err)
	require.Equal(t, "0123456789abcdeXY", string(og))
	require.Equal(t, string(og), string(tg))
}

// Every call answers what *os.File's answers, for a directory and five
// open modes, through a second Close (testutil.FileCallsLikeOS). The
// empty Write returned nil where os's failed.
func TestFileCallsLikeOS(t *testing.T) {
	rt := newRuntime(t, 1)
	testutil.FileCallsLikeOS(t, func(name string, flags int) (testutil.File, error) {
		return On(rt).OpenFile(name, flags, 0)
	})
}

// A FIFO has no position, as with os: Seek, ReadAt and WriteAt fail with
// ESPIPE (Seek without waiting for a Read blocked on the FIFO), Read and
// Write move the data. Seek returned a position; on the fallback backend
// Read failed with ESPIPE (a pread at the File's offset).
func TestFileFIFOLikeOS(t *testing.T) {
	rt := newRuntime(t, 1)
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, unix.Mkfifo(fifo, 0o600))
	of, tf := openBoth(t, rt, fifo, os.O_RDWR)
	read := make(chan error, 1)
	go func() {
		_, err := tf.Read(make([]byte, 4))
		read <- err
	}()
	_, oerr := of.Seek(0, io.SeekStart)
	_, terr := tf.Seek(0, io.SeekStart)
	require.ErrorIs(t, oerr, unix.ESPIPE)
	require.ErrorIs(t, terr, unix.ESPIPE)
	require.Equal(t, oerr.Error(), terr.Error())
	_, err := of.Write([]byte("data"))
	require.NoError(t, err)
	select {
	case err := <-read:
		require.NoError(t, err)
	case <-time.After(hangGuard):
		t.Fatal("the FIFO's Read never returned")
	}
	_, oerr = of.ReadAt(make([]byte, 1), 0)
	_, terr = tf.ReadAt(make([]byte, 1), 0)
	require.ErrorIs(t, terr, unix.ESPIPE)
	require.Equal(t, oerr.Error(), terr.Error())
	_, oerr = of.WriteAt([]byte("x"), 0)
	_, terr = tf.WriteAt([]byte("x"), 0)
	require.ErrorIs(t, terr, unix.ESPIPE)
	require.Equal(t, oerr.Error(), terr.Error())
	n, err := tf.Write([]byte("back"))
	require.NoError(t, err)
	require.Equal(t, 4, n)
	b := make([]byte, 8)
	n, err = of.Read(b)
	require.NoError(t, err)
	require.Equal(t, "back", string(b[:n]))
}
