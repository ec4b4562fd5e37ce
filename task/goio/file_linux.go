//go:build linux

package goio

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/pure-uring/uring/internal/fdguard"
	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
	"github.com/pure-uring/uring/task/goio/internal/zerocopy"
)

// File is a file whose reads and writes go through the runtime (each an
// operation awaited by a task of the file's executor: io_uring's, or the
// fallback backend's). It
// behaves like *os.File where it claims an interface: io.ReaderAt,
// io.WriterAt, io.Reader, io.Writer, io.Seeker (all three whences),
// io.Closer, io.ReaderFrom and io.WriterTo (SPLICE, without user-space
// copies, to and from a Conn, another File or a regular *os.File), and
// http.File (Stat, Readdir), so http.ServeContent and http.FileServer
// serve it. Errors are *os.PathError naming the file, as os's.
type File struct {
	rt   *task.Runtime
	ex   *task.Executor
	fd   int
	name string
	// Buffered (not O_DIRECT): ReadAt first tries the page cache from the
	// calling goroutine.
	cached bool
	append bool // opened with O_APPEND
	stream bool // no position (a FIFO, a socket, a tty): read(2) and write(2), as os's
	isDir  bool // a directory: ReadDir moves the kernel's position, which Seek answers

	// mu guards the file position; Read, Write and Seek hold it throughout,
	// so concurrent calls move it one after another (read(2), write(2)
	// and lseek(2) hold the kernel's f_pos_lock); the copies (ReadFrom,
	// WriteTo) read and advance it as copy_file_range(2) does.
	mu  sync.Mutex
	off int64
	g   fdguard.Guard

	dmu  sync.Mutex
	dirf *os.File // a dup of fd for Readdir, made on first use
}

// OpenFile opens name through io_uring (OPENAT), with os.OpenFile's flags
// and permission bits.
func (e *Env) OpenFile(name string, flags int, perm os.FileMode) (*File, error) {
	if e == nil {
		return nil, nilReceiver("Env.OpenFile")
	}
	ex := e.rt.NextExecutor()
	fd, err := call(context.Background(), e.rt, ex, func(t *task.T) (int, error) { return t.Open(name, flags, uint32(perm.Perm())) })
	if err != nil {
		return nil, openError(name, err)
	}
	f := &File{rt: e.rt, ex: ex, fd: fd, name: name, cached: flags&syscall.O_DIRECT == 0, append: flags&syscall.O_APPEND != 0}
	var st syscall.Stat_t
	if fdio.Fstat(fd, &st) == nil {
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFDIR:
			f.isDir = true
		case syscall.S_IFIFO, syscall.S_IFSOCK:
			f.stream = true
		case syscall.S_IFCHR: // a terminal has no position, /dev/null has one
			_, err := fdio.Seek(fd, 0, io.SeekCurrent)
			f.stream = errors.Is(err, syscall.ESPIPE)
		}
	}
	return f, nil
}

// errnoOf is the errno an operation error carries (os reports the bare
// errno in an *os.PathError); other errors are unchanged.
func errnoOf(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}

// Fd returns the file descriptor.
func (f *File) Fd() int {
	if f == nil {
		return -1
	}
	return f.fd
}

// Name returns the name the file was opened with.
func (f *File) Name() string {
	if f == nil {
		return ""
	}
	return f.name
}

func (f *File) begin() error {
	if !f.g.Acquire() {
		return os.ErrClosed
	}
	return nil
}

func (f *File) pathErr(op string, err error) error {
	return &os.PathError{Op: op, Path: f.name, Err: err}
}

// ReadAt reads len(b) bytes at off (fewer only at end of file, with io.EOF).
// On a buffered file what the page cache holds is read by the calling
// goroutine itself (preadv2 with RWF_NOWAIT), without a trip to the
// executor; the rest, if any, goes through the ring.
func (f *File) ReadAt(b []byte, off int64) (int, error) {
	if f == nil {
		return 0, nilReceiver("File.ReadAt")
	}
	if off < 0 {
		return 0, f.pathErr("readat", argError("File.ReadAt", "off", "is negative"))
	}
	if len(b) == 0 { // as os's: no system call, no error even after Close
		return 0, nil
	}
	if f.stream { // as os's pread(2)
		return 0, f.pathErr("read", syscall.ESPIPE)
	}
	if err := f.begin(); err != nil {
		return 0, f.pathErr("read", err)
	}
	defer f.g.Release()
	done := 0
	if f.cached && len(b) > 0 {
		n, err := fdio.PreadCached(f.fd, b, off)
		switch {
		case err != nil: // EAGAIN (not cached) or an error the ring reports
		case n == len(b):
			return n, nil
		case n == 0:
			return 0, io.EOF
		default:
			done = n // partly cached, or at end of file: the ring says which
		}
	}
	n, err := call(context.Background(), f.rt, f.ex, func(t *task.T) (int, error) {
		total := done
		for total < len(b) {
			n, err := t.Read(f.fd, b[total:], off+int64(total))
			if err != nil {
				return total, err
			}
			if n == 0 {
				return total, io.EOF
			}
			total += n
		}
		return total, nil
	})
	if err != nil && err != io.EOF {
		err = f.pathErr("read", errnoOf(err))
	}
	return n, err
}

// WriteAt writes all of b at off. A file opened with O_APPEND refuses it
// with os's error (the kernel would append instead).
func (f *File) WriteAt(b []byte, off int64) (int, error) {
	if f == nil {
		return 0, nilReceiver("File.WriteAt")
	}
	if f.append {
		return 0, errWriteAtInAppendMode
	}
	if off < 0 {
		return 0, f.pathErr("writeat", argError("File.WriteAt", "off", "is negative"))
	}
	if len(b) == 0 { // as os's: no system call, no error even after Close
		return 0, nil
	}
	if f.stream { // as os's pwrite(2)
		return 0, f.pathErr("write", syscall.ESPIPE)
	}
	return f.write(b, off)
}

// errWriteAtInAppendMode is os's answer to WriteAt on an O_APPEND file.
var errWriteAtInAppendMode = errors.New("os: invalid use of WriteAt on file opened with O_APPEND")

// write writes all of b at off, or at the end of an O_APPEND file with off
// task.CurrentPos (the kernel's file position, which it moves there).
func (f *File) write(b []byte, off int64) (int, error) {
	if err := f.begin(); err != nil {
		return 0, f.pathErr("write", err)
	}
	defer f.g.Release()
	n, err := call(context.Background(), f.rt, f.ex, func(t *task.T) (int, error) {
		total := 0
		for {
			at := off
			if off != task.CurrentPos {
				at += int64(total)
			}
			// once at least, as os's Write: an empty write still reports
			// a file not open for writing
			n, err := t.Write(f.fd, b[total:], at)
			if err != nil {
				return total, err
			}
			if total += n; total >= len(b) {
				return total, nil
			}
		}
	})
	if err != nil {
		err = f.pathErr("write", errnoOf(err))
	}
	return n, err
}

// Read reads at the file's offset and advances it.
func (f *File) Read(b []byte) (int, error) {
	if f == nil {
		return 0, nilReceiver("File.Read")
	}
	if len(b) == 0 { // as os's: nothing read, but a closed file says so
		if err := f.begin(); err != nil {
			return 0, f.pathErr("read", err)
		}
		f.g.Release()
		return 0, nil
	}
	if f.stream {
		return f.readStream(b)
	}
	f.mu.Lock() // held across the read, as read(2) holds the kernel's f_pos_lock
	defer f.mu.Unlock()
	n, err := f.ReadAt(b, f.off)
	f.off += int64(n)
	if n > 0 && err == io.EOF {
		err = nil
	}
	return n, err
}

// readStream is Read on a file without a position: one read(2), which
// returns what is there (0 and io.EOF once the writers are gone).
func (f *File) readStream(b []byte) (int, error) {
	if err := f.begin(); err != nil {
		return 0, f.pathErr("read", err)
	}
	defer f.g.Release()
	n, err := call(context.Background(), f.rt, f.ex, func(t *task.T) (int, error) { return t.Read(f.fd, b, task.CurrentPos) })
	switch {
	case err != nil:
		return n, f.pathErr("read", errnoOf(err))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes at the file's offset and advances it.
func (f *File) Write(b []byte) (int, error) {
	if f == nil {
		return 0, nilReceiver("File.Write")
	}
	if f.stream {
		return f.write(b, task.CurrentPos)
	}
	f.mu.Lock() // held across the write, as write(2) holds the kernel's f_pos_lock
	defer f.mu.Unlock()
	if !f.append {
		n, err := f.write(b, f.off)
		f.off += int64(n)
		return n, err
	}
	// O_APPEND: written at the kernel's file position, which the kernel
	// moves to the end first and past the bytes after; the file's offset
	// follows it there, as os's does.
	n, err := f.write(b, task.CurrentPos)
	if n > 0 && f.g.Acquire() {
		if pos, serr := fdio.Seek(f.fd, 0, io.SeekCurrent); serr == nil {
			f.off = pos
		}
		f.g.Release()
	}
	return n, err
}

// Seek sets the offset of Read and Write, relative to the start
// (io.SeekStart), the current offset (io.SeekCurrent) or the end of the
// file (io.SeekEnd, lseek(2)'s answer: a block device's size too), as
// *os.File's does: offsets past the end are allowed, before the start are
// not. On error the offset is unchanged and 0 is returned. A FIFO, socket
// or terminal has no offset: Seek, ReadAt and WriteAt fail with ESPIPE
// there, and Read and Write move the data, as os's.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	if f == nil {
		return 0, nilReceiver("File.Seek")
	}
	if err := f.begin(); err != nil {
		return 0, f.pathErr("seek", err)
	}
	defer f.g.Release()
	if f.stream { // no position: ESPIPE, as os's lseek(2), and no wait for a Read that holds the lock
		return 0, f.pathErr("seek", syscall.ESPIPE)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.isDir && (whence == io.SeekStart || whence == io.SeekCurrent || whence == io.SeekEnd) {
		// The position ReadDir moves is the kernel's: lseek(2) answers, as os's.
		pos, err := fdio.Seek(f.fd, offset, whence)
		if err != nil {
			return 0, f.pathErr("seek", errnoOf(err))
		}
		f.off = pos
		return pos, nil
	}
	var pos int64
	switch whence {
	case io.SeekStart:
		pos = offset
	case io.SeekCurrent:
		pos = f.off + offset
		if offset > 0 && pos < f.off {
			return 0, f.pathErr("seek", argError("File.Seek", "offset", "= "+strconv.FormatInt(offset, 10)+" overflows the offset"))
		}
	case io.SeekEnd:
		n, err := fdio.Seek(f.fd, offset, io.SeekEnd)
		if err != nil {
			return 0, f.pathErr("seek", errnoOf(err))
		}
		pos = n
	default:
		return 0, f.pathErr("seek", argError("File.Seek", "whence", "= "+strconv.Itoa(whence)+" is not io.SeekStart, io.SeekCurrent or io.SeekEnd"))
	}
	if pos < 0 {
		return 0, f.pathErr("seek", argError("File.Seek", "offset", "= "+strconv.FormatInt(offset, 10)+" moves before the start of the file"))
	}
	f.off = pos
	return pos, nil
}

// Stat describes the file (fstat(2)) as *os.File's Stat does: the base
// of its name, size, mode bits as os.FileMode, modification time, and
// Sys() a *syscall.Stat_t.
func (f *File) Stat() (os.FileInfo, error) {
	if f == nil {
		return nil, nilReceiver("File.Stat")
	}
	if err := f.begin(); err != nil {
		return nil, f.pathErr("stat", err)
	}
	defer f.g.Release()
	fs := &fileStat{name: filepath.Base(f.name)}
	if err := fdio.Fstat(f.fd, &fs.sys); err != nil {
		return nil, f.pathErr("stat", errnoOf(err))
	}
	fs.fill()
	return fs, nil
}

// fileStat is the os.FileInfo of a File, filled as os fills its own.
type fileStat struct {
	name    string
	size    int64
	mode    os.FileMode
	modTime time.Time
	sys     syscall.Stat_t
}

func (fs *fileStat) fill() {
	st := &fs.sys
	fs.size = st.Size
	fs.modTime = time.Unix(st.Mtim.Unix())
	fs.mode = os.FileMode(st.Mode & 0o777)
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		fs.mode |= os.ModeDevice
	case syscall.S_IFCHR:
		fs.mode |= os.ModeDevice | os.ModeCharDevice
	case syscall.S_IFDIR:
		fs.mode |= os.ModeDir
	case syscall.S_IFIFO:
		fs.mode |= os.ModeNamedPipe
	case syscall.S_IFLNK:
		fs.mode |= os.ModeSymlink
	case syscall.S_IFSOCK:
		fs.mode |= os.ModeSocket
	}
	if st.Mode&syscall.S_ISGID != 0 {
		fs.mode |= os.ModeSetgid
	}
	if st.Mode&syscall.S_ISUID != 0 {
		fs.mode |= os.ModeSetuid
	}
	if st.Mode&syscall.S_ISVTX != 0 {
		fs.mode |= os.ModeSticky
	}
}

func (fs *fileStat) Name() string       { return fs.name }
func (fs *fileStat) Size() int64        { return fs.size }
func (fs *fileStat) Mode() os.FileMode  { return fs.mode }
func (fs *fileStat) ModTime() time.Time { return fs.modTime }
func (fs *fileStat) IsDir() bool        { return fs.mode.IsDir() }
func (fs *fileStat) Sys() any           { return &fs.sys }

// Truncate changes the file's size (ftruncate(2)).
func (f *File) Truncate(size int64) error {
	if f == nil {
		return nilReceiver("File.Truncate")
	}
	if size < 0 {
		return f.pathErr("truncate", argError("File.Truncate", "size", "= "+strconv.FormatInt(size, 10)+" is negative"))
	}
	if err := f.begin(); err != nil {
		return f.pathErr("truncate", err)
	}
	defer f.g.Release()
	if err := fdio.Ftruncate(f.fd, size); err != nil {
		return f.pathErr("truncate", errnoOf(err))
	}
	return nil
}

// dir is the *os.File that lists a directory File (a dup of its fd).
func (f *File) dir() (*os.File, error) {
	f.dmu.Lock()
	defer f.dmu.Unlock()
	if f.dirf == nil {
		fd, err := fdio.Dup(f.fd)
		if err != nil {
			return nil, f.pathErr("readdirent", errnoOf(err))
		}
		f.dirf = os.NewFile(uintptr(fd), f.name)
	}
	return f.dirf, nil
}

// Readdir lists a directory File as *os.File's Readdir does (getdents(2)
// through os: io_uring has no op for it).
func (f *File) Readdir(n int) ([]os.FileInfo, error) {
	if f == nil {
		return nil, nilReceiver("File.Readdir")
	}
	if err := f.begin(); err != nil {
		return nil, f.pathErr("readdirent", err)
	}
	defer f.g.Release()
	d, err := f.dir()
	if err != nil {
		return nil, err
	}
	return d.Readdir(n)
}

// ReadDir lists a directory File as *os.File's ReadDir does.
func (f *File) ReadDir(n int) ([]os.DirEntry, error) {
	if f == nil {
		return nil, nilReceiver("File.ReadDir")
	}
	if err := f.begin(); err != nil {
		return nil, f.pathErr("readdirent", err)
	}
	defer f.g.Release()
	d, err := f.dir()
	if err != nil {
		return nil, err
	}
	return d.ReadDir(n)
}

// Sync flushes the file.
func (f *File) Sync() error {
	if f == nil {
		return nilReceiver("File.Sync")
	}
	if err := f.begin(); err != nil {
		return f.pathErr("sync", err)
	}
	defer f.g.Release()
	_, err := call(context.Background(), f.rt, f.ex, func(t *task.T) (struct{}, error) { return struct{}{}, t.Fsync(f.fd, 0) })
	if err != nil {
		return f.pathErr("sync", errnoOf(err))
	}
	return nil
}

// Close waits for operations in flight and closes the file. From a task
// of the runtime it returns task.ErrWouldDeadlock and leaves the file
// open.
func (f *File) Close() error {
	if f == nil {
		return nilReceiver("File.Close")
	}
	if f.rt.OnThread() { // before the guard: it would wait, and mark the file closed
		return f.pathErr("close", task.ErrWouldDeadlock)
	}
	if !f.g.Close() {
		return f.pathErr("close", os.ErrClosed)
	}
	f.dmu.Lock()
	if f.dirf != nil {
		_ = f.dirf.Close()
	}
	f.dmu.Unlock()
	// close(2) here, not through the ring: it must work after the
	// runtime's Close too (a handler that closes its file late), and the
	// guard has already waited for the file's requests in flight.
	if err := sys.Close(f.fd); err != nil {
		return f.pathErr("close", errnoOf(err))
	}
	return nil
}

// WriteTo copies the file from its offset to its end into w and advances
// the offset (io.WriterTo): into a Conn, another File or a regular
// *os.File through SPLICE; into anything else through a buffer.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	if f == nil {
		return 0, nilReceiver("File.WriteTo")
	}
	n, err, handled := f.spliceTo(w)
	if !handled {
		return io.Copy(w, fileWithoutWriteTo{File: f})
	}
	if err != nil {
		if _, ok := err.(*os.PathError); !ok {
			err = f.pathErr("read", err)
		}
	}
	return n, err
}

func (f *File) spliceTo(w io.Writer) (n int64, err error, handled bool) {
	switch dst := w.(type) {
	case *Conn:
		return dst.spliceFrom(f)
	case *File:
		if dst.append {
			return 0, nil, false // splice refuses O_APPEND
		}
		return withFile(f, "read", func(in *zerocopy.FdFile) (int64, error) {
			return innerSplice(withFile(dst, "write", func(out *zerocopy.FdFile) (int64, error) {
				return spliceFiles(f.rt, f.ex, in, out, math.MaxInt64)
			}))
		})
	case zerocopy.OSFile:
		return withFile(f, "read", func(in *zerocopy.FdFile) (int64, error) {
			return innerSplice(zerocopy.WithOSFile(dst, func(out *zerocopy.FdFile) (int64, error) {
				return spliceFiles(f.rt, f.ex, in, out, math.MaxInt64)
			}))
		})
	}
	return 0, nil, false
}

// innerSplice passes on the result of a splice nested in another's
// callback: not handled becomes zerocopy.ErrNotHandled.
func innerSplice(n int64, err error, handled bool) (int64, error) {
	if !handled {
		return 0, zerocopy.ErrNotHandled
	}
	return n, err
}

// ReadFrom copies from r until EOF into the file at its offset and
// advances the offset (io.ReaderFrom): from a Conn, another File or a
// regular *os.File (maybe behind an *io.LimitedReader) through SPLICE;
// from anything else through a buffer.
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	if f == nil {
		return 0, nilReceiver("File.ReadFrom")
	}
	n, err, handled := f.spliceFrom(r)
	if !handled {
		return io.Copy(fileWithoutReadFrom{File: f}, r)
	}
	if err != nil {
		if _, ok := err.(*os.PathError); !ok {
			err = f.pathErr("write", err)
		}
	}
	return n, err
}

func (f *File) spliceFrom(r io.Reader) (n int64, err error, handled bool) {
	r, lr, remain := zerocopy.Limited(r)
	if remain <= 0 {
		return 0, nil, true
	}
	switch src := r.(type) {
	case *Conn:
		if f.append {
			return 0, nil, false // splice refuses O_APPEND, after the socket's data left it
		}
		n, err, handled = withFile(f, "write", func(out *zerocopy.FdFile) (int64, error) { return src.spliceToFd(out, remain) })
	case *File:
		if f.append {
			return 0, nil, false // splice refuses O_APPEND
		}
		n, err, handled = withFile(f, "write", func(out *zerocopy.FdFile) (int64, error) {
			return innerSplice(withFile(src, "read", func(in *zerocopy.FdFile) (int64, error) {
				return spliceFiles(f.rt, f.ex, in, out, remain)
			}))
		})
	case zerocopy.OSFile:
		n, err, handled = withFile(f, "write", func(out *zerocopy.FdFile) (int64, error) {
			return innerSplice(zerocopy.WithOSFile(src, func(in *zerocopy.FdFile) (int64, error) {
				return spliceFiles(f.rt, f.ex, in, out, remain)
			}))
		})
	}
	if lr != nil {
		lr.N -= n
	}
	return n, err, handled
}

// noWriteTo and noReadFrom hide File's methods from io.Copy: their
// selector is ambiguous with File's in the wrappers, so the wrappers have
// neither (os's own trick).
type noWriteTo struct{}

func (noWriteTo) WriteTo(io.Writer) (int64, error) { return 0, errors.ErrUnsupported }

type fileWithoutWriteTo struct {
	noWriteTo
	*File
}

type noReadFrom struct{}

func (noReadFrom) ReadFrom(io.Reader) (int64, error) { return 0, errors.ErrUnsupported }

type fileWithoutReadFrom struct {
	noReadFrom
	*File
}

// adopt makes a File of the runtime from a file os opened (DirFS): the
// File gets a duplicate of its fd, and of is closed.
func (e *Env) adopt(of *os.File, name string) (*File, error) {
	defer of.Close()
	if e.closing() {
		return nil, &os.PathError{Op: "open", Path: name, Err: task.ErrClosed}
	}
	sc, err := of.SyscallConn()
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	fd := -1
	if cerr := sc.Control(func(ofd uintptr) { fd, err = fdio.Dup(int(ofd)) }); cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return &File{rt: e.rt, ex: e.rt.NextExecutor(), fd: fd, name: name, cached: true}, nil
}
