//go:build linux

package task

import (
	"context"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/pure-uring/uring/sys"
)

// File is a file whose reads and writes go through the runtime. It
// implements io.ReaderAt, io.WriterAt, io.Reader, io.Writer, io.Seeker and
// io.Closer.
type File struct {
	rt   *Runtime
	ex   *Executor
	fd   int
	name string
	// Buffered (not O_DIRECT): ReadAt first tries the page cache from the
	// calling goroutine.
	cached bool

	mu  sync.Mutex // the file position
	off int64
	g   fdGuard
}

// OpenFile opens name through io_uring (OPENAT).
func (rt *Runtime) OpenFile(name string, flags int, perm os.FileMode) (*File, error) {
	ex := rt.Pick()
	fd, err := call(context.Background(), ex, func(t *T) (int, error) { return t.Open(name, flags, uint32(perm.Perm())) })
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return &File{rt: rt, ex: ex, fd: fd, name: name, cached: flags&syscall.O_DIRECT == 0}, nil
}

// Fd returns the file descriptor.
func (f *File) Fd() int { return f.fd }

func (f *File) begin() error {
	if !f.g.begin() {
		return os.ErrClosed
	}
	return nil
}

// ReadAt reads len(b) bytes at off (fewer only at end of file, with io.EOF).
// On a buffered file what the page cache holds is read by the calling
// goroutine itself (preadv2 with RWF_NOWAIT), without a trip to the
// executor; the rest, if any, goes through the ring.
func (f *File) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, argError("File.ReadAt", "off", "is negative")
	}
	if err := f.begin(); err != nil {
		return 0, &os.PathError{Op: "read", Path: f.name, Err: err}
	}
	defer f.g.end()
	done := 0
	if f.cached && len(b) > 0 {
		n, err := sys.PreadNowait(f.fd, b, off)
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
	n, err := call(context.Background(), f.ex, func(t *T) (int, error) {
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
		err = &os.PathError{Op: "read", Path: f.name, Err: err}
	}
	return n, err
}

// WriteAt writes all of b at off.
func (f *File) WriteAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, argError("File.WriteAt", "off", "is negative")
	}
	if err := f.begin(); err != nil {
		return 0, &os.PathError{Op: "write", Path: f.name, Err: err}
	}
	defer f.g.end()
	n, err := call(context.Background(), f.ex, func(t *T) (int, error) {
		total := 0
		for total < len(b) {
			n, err := t.Write(f.fd, b[total:], off+int64(total))
			if err != nil {
				return total, err
			}
			total += n
		}
		return total, nil
	})
	if err != nil {
		err = &os.PathError{Op: "write", Path: f.name, Err: err}
	}
	return n, err
}

// Read reads at the file's offset and advances it.
func (f *File) Read(b []byte) (int, error) {
	f.mu.Lock()
	off := f.off
	f.mu.Unlock()
	n, err := f.ReadAt(b, off)
	f.mu.Lock()
	f.off = off + int64(n)
	f.mu.Unlock()
	if n > 0 && err == io.EOF {
		err = nil
	}
	return n, err
}

// Write writes at the file's offset and advances it.
func (f *File) Write(b []byte) (int, error) {
	f.mu.Lock()
	off := f.off
	f.mu.Unlock()
	n, err := f.WriteAt(b, off)
	f.mu.Lock()
	f.off = off + int64(n)
	f.mu.Unlock()
	return n, err
}

// Seek sets the offset of Read and Write (io.SeekEnd is not supported
// without a stat; use Statx).
func (f *File) Seek(offset int64, whence int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += f.off
	default:
		return f.off, argError("File.Seek", "whence", "must be io.SeekStart or io.SeekCurrent")
	}
	if offset < 0 {
		return f.off, argError("File.Seek", "offset", "is negative")
	}
	f.off = offset
	return offset, nil
}

// Sync flushes the file.
func (f *File) Sync() error {
	if err := f.begin(); err != nil {
		return err
	}
	defer f.g.end()
	return f.rt.Fsync(context.Background(), f.fd)
}

// Close waits for operations in flight and closes the file.
func (f *File) Close() error {
	if !f.g.close() {
		return os.ErrClosed
	}
	_, err := call(context.Background(), f.ex, func(t *T) (struct{}, error) { return struct{}{}, t.Close(f.fd) })
	return err
}
