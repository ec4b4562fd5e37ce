package fileio

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pure-uring/uring/internal/fdguard"
)

// File is an open file with *os.File's methods and meaning. ReadAt,
// WriteAt and ReadAtBatch of a regular file or block device go through
// io_uring; everything else, and every call on a file Go's netpoller
// waits on (pipe, FIFO, character device, socket), is os's (see the
// package doc). Safe for concurrent use, as *os.File is.
type File struct {
	of         *os.File
	rings      *Rings // nil: every call is os's
	fd         int
	direct     bool          // O_DIRECT: no page-cache probe
	append     bool          // O_APPEND: WriteAt is refused, as os refuses it
	nowaitRead atomic.Bool   // the page-cache probe (RWF_NOWAIT) works for reads here
	g          fdguard.Guard // Close waits for the ring calls in progress
	group      *syncGroup    // O_DSYNC / O_SYNC: overlapping writes share flushes (Linux)
}

// maxRW caps one read or write request, as os does (1 GiB).
const maxRW = 1 << 30

var errWriteAtInAppendMode = errors.New("os: invalid use of WriteAt on file opened with O_APPEND")

// OS returns the *os.File under f, for what this package does not wrap.
// Closing it closes f's fd under f's ring operations: close f instead.
func (f *File) OS() *os.File {
	if f == nil {
		return nil
	}
	return f.of
}

// Name returns the name the file was opened with, as os.File.Name.
func (f *File) Name() string { return f.of.Name() }

// ReadAt reads len(b) bytes at off, as os.File.ReadAt: it returns fewer
// only with an error, io.EOF at the end of the file.
func (f *File) ReadAt(b []byte, off int64) (n int, err error) {
	if f == nil {
		return 0, os.ErrInvalid
	}
	if f.rings == nil {
		return f.of.ReadAt(b, off)
	}
	if off < 0 {
		return 0, f.negativeOffset("readat")
	}
	if len(b) == 0 { // as os's: no system call, no error even after Close
		return 0, nil
	}
	if !f.g.Acquire() {
		return 0, f.closedErr("read")
	}
	n, err = f.readAtHeld(b, off)
	f.g.Release()
	return n, err
}

// readAtHeld is ReadAt on the ring path, the guard held.
func (f *File) readAtHeld(b []byte, off int64) (n int, err error) {
	if off < 0 {
		return 0, f.negativeOffset("readat")
	}
	for len(b) > 0 {
		m, e := f.pread(b[:min(len(b), maxRW)], off)
		if e != nil {
			return n, &os.PathError{Op: "read", Path: f.of.Name(), Err: e}
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
		b = b[m:]
		off += int64(m)
	}
	return n, nil
}

// WriteAt writes len(b) bytes at off, as os.File.WriteAt: an error when
// fewer were written, and always one on a file opened with O_APPEND.
func (f *File) WriteAt(b []byte, off int64) (n int, err error) {
	if f == nil {
		return 0, os.ErrInvalid
	}
	if f.rings == nil {
		return f.of.WriteAt(b, off)
	}
	if f.append {
		return 0, errWriteAtInAppendMode
	}
	if off < 0 {
		return 0, f.negativeOffset("writeat")
	}
	if len(b) == 0 { // as os's: no system call, no error even after Close
		return 0, nil
	}
	if !f.g.Acquire() {
		return 0, f.closedErr("write")
	}
	for len(b) > 0 {
		m, e := f.pwrite(b[:min(len(b), maxRW)], off)
		if e != nil {
			err = &os.PathError{Op: "write", Path: f.of.Name(), Err: e}
			break
		}
		if m == 0 {
			err = &os.PathError{Op: "write", Path: f.of.Name(), Err: io.ErrShortWrite}
			break
		}
		n += m
		b = b[m:]
		off += int64(m)
	}
	f.g.Release()
	return n, err
}

// negativeOffset is os's error for an offset below zero.
func (f *File) negativeOffset(op string) error {
	return &os.PathError{Op: op, Path: f.of.Name(), Err: errNegativeOffset}
}

var errNegativeOffset = errors.New("negative offset")

func (f *File) closedErr(op string) error {
	return &os.PathError{Op: op, Path: f.of.Name(), Err: os.ErrClosed}
}

// Close closes the file, as os.File.Close: a read waiting on a pollable
// file returns an error wrapping os.ErrClosed; ring operations in flight
// on a regular file complete first. A second Close returns an error
// wrapping os.ErrClosed.
func (f *File) Close() error {
	if f == nil {
		return os.ErrInvalid
	}
	if f.rings != nil && !f.g.Close() {
		return f.closedErr("close")
	}
	f.closeGroup()
	return f.of.Close()
}

// Read reads from the file position, as os.File.Read.
func (f *File) Read(b []byte) (int, error) { return f.of.Read(b) }

// Write writes at the file position, as os.File.Write.
func (f *File) Write(b []byte) (int, error) { return f.of.Write(b) }

// WriteString is Write of s's bytes, as os.File.WriteString.
func (f *File) WriteString(s string) (int, error) { return f.of.WriteString(s) }

// Seek sets the file position, as os.File.Seek.
func (f *File) Seek(offset int64, whence int) (int64, error) { return f.of.Seek(offset, whence) }

// ReadFrom copies r to the file position, as os.File.ReadFrom (with
// copy_file_range or splice where os uses them, also from a *File).
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	if g, ok := r.(*File); ok && g != nil {
		r = g.of
	}
	return f.of.ReadFrom(r)
}

// WriteTo copies the file from its position to w, as os.File.WriteTo
// (with sendfile or splice where os uses them, also to a *File).
func (f *File) WriteTo(w io.Writer) (int64, error) {
	if g, ok := w.(*File); ok && g != nil {
		w = g.of
	}
	return f.of.WriteTo(w)
}

// Stat returns the file's FileInfo, as os.File.Stat.
func (f *File) Stat() (os.FileInfo, error) { return f.of.Stat() }

// Sync flushes the file to stable storage, as os.File.Sync.
func (f *File) Sync() error { return f.of.Sync() }

// Truncate changes the file's size, as os.File.Truncate.
func (f *File) Truncate(size int64) error { return f.of.Truncate(size) }

// Chmod changes the file's mode, as os.File.Chmod.
func (f *File) Chmod(mode os.FileMode) error { return f.of.Chmod(mode) }

// ReadDir reads the directory's entries, as os.File.ReadDir.
func (f *File) ReadDir(n int) ([]fs.DirEntry, error) { return f.of.ReadDir(n) }

// Readdir reads the directory's FileInfos, as os.File.Readdir.
func (f *File) Readdir(n int) ([]os.FileInfo, error) { return f.of.Readdir(n) }

// Readdirnames reads the directory's names, as os.File.Readdirnames.
func (f *File) Readdirnames(n int) ([]string, error) { return f.of.Readdirnames(n) }

// Fd returns the file's descriptor, as os.File.Fd (which puts a pollable
// file in blocking mode; SyscallConn does not).
func (f *File) Fd() uintptr { return f.of.Fd() }

// SyscallConn returns a raw connection to the fd, as os.File.SyscallConn.
func (f *File) SyscallConn() (syscall.RawConn, error) { return f.of.SyscallConn() }

// SetDeadline sets the read and write deadlines, as os.File.SetDeadline:
// os.ErrNoDeadline on a file that is not pollable (a regular file).
func (f *File) SetDeadline(t time.Time) error { return f.of.SetDeadline(t) }

// SetReadDeadline sets the read deadline, as os.File.SetReadDeadline.
func (f *File) SetReadDeadline(t time.Time) error { return f.of.SetReadDeadline(t) }

// SetWriteDeadline sets the write deadline, as os.File.SetWriteDeadline.
func (f *File) SetWriteDeadline(t time.Time) error { return f.of.SetWriteDeadline(t) }
