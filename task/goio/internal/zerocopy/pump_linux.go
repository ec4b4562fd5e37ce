package zerocopy

import (
	"errors"
	"io"
	"math"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/sys"
)

// PipeSize is the pipe capacity asked for (F_SETPIPE_SZ): the bytes
// moved per splice pair. 1 MiB is the default fs.pipe-max-size.
const PipeSize = 1 << 20

// Pipe is the pipe between the two halves of a splice, made on first use.
type Pipe struct {
	R, W, Size int
	open       bool
}

// Get makes the pipe unless it is open.
func (p *Pipe) Get() error {
	if p.open {
		return nil
	}
	r, w, n, err := fdio.Pipe(PipeSize)
	if err != nil {
		return os.NewSyscallError("pipe2", err)
	}
	p.R, p.W, p.Size, p.open = r, w, n, true
	return nil
}

// Close closes the pipe (also to drop what a failed splice left in it).
func (p *Pipe) Close() {
	if p.open {
		_ = sys.Close(p.R)
		_ = sys.Close(p.W)
		p.open = false
	}
}

// Spliced counts the copies that went through splice or sendfile, no byte
// through user space; Sentfile those through sendfile (for the tests).
var Spliced, Sentfile atomic.Int64

// ErrNotHandled: the first splice was refused; copy another way.
var ErrNotHandled = errors.New("goio: splice not possible")

// Pump moves up to remain bytes: fill puts up to n bytes into the pipe (0
// at the source's end), drain moves up to n of them out. A fill refused
// (or, when the source can be read again, a drain refused) before anything
// moved is ErrNotHandled when the kernel says splice does not work for
// these fds.
func Pump(p *Pipe, remain int64, fill func(n uint32) (int, error), drain func(n int) (int, error), rereadable bool) (int64, error) {
	var written int64
	for remain > 0 {
		n, err := fill(uint32(min(remain, int64(p.Size))))
		if err != nil {
			if written == 0 && Refused(err) {
				return 0, ErrNotHandled
			}
			return written, err
		}
		if written == 0 {
			Spliced.Add(1)
		}
		if n == 0 {
			return written, nil
		}
		remain -= int64(n)
		for n > 0 {
			m, err := drain(n)
			written += int64(m)
			n -= m
			if err == nil && m == 0 {
				err = io.ErrShortWrite
			}
			if err != nil {
				p.Close() // bytes may be left in it
				if written == 0 && rereadable && Refused(err) {
					return 0, ErrNotHandled // nothing consumed: copy another way
				}
				return written, err
			}
		}
	}
	return written, nil
}

// Refused reports an answer meaning "splice cannot do this".
func Refused(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS)
}

// FdFile is a regular file's fd and its position, for a splice.
type FdFile struct {
	Fd  int
	Off int64
}

// OSFile is an *os.File, or a type that embeds one (os's own wrappers).
type OSFile interface {
	syscall.Conn
	io.Seeker
	Stat() (os.FileInfo, error)
}

// WithOSFile runs fn with f's fd and position when f is a regular file,
// and moves the position past what fn moved. handled is false for other
// files.
func WithOSFile(f OSFile, fn func(ff *FdFile) (int64, error)) (n int64, err error, handled bool) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, nil, false
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, nil, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, nil, false
	}
	cerr := rc.Control(func(fd uintptr) { n, err = fn(&FdFile{Fd: int(fd), Off: pos}) })
	if cerr != nil {
		return 0, cerr, true
	}
	if err == ErrNotHandled {
		return 0, nil, false
	}
	if n > 0 {
		if _, serr := f.Seek(pos+n, io.SeekStart); serr != nil && err == nil {
			err = serr
		}
	}
	return n, err, true
}

// Limited unwraps an *io.LimitedReader: the reader and how much to take.
func Limited(r io.Reader) (io.Reader, *io.LimitedReader, int64) {
	if lr, ok := r.(*io.LimitedReader); ok {
		return lr.R, lr, lr.N
	}
	return r, nil, math.MaxInt64
}
