//go:build !linux

package fileio

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/argerr"
)

// Rings stands for io_uring rings; off Linux there are none, and every
// call runs on plain system calls through *os.File (Fallback says so).
type Rings struct {
	closed atomic.Bool
}

// DefaultEntries is the SQ size of each of Default's rings on Linux.
const DefaultEntries = 256

var errNoIOUring = fmt.Errorf("fileio: io_uring is Linux's: %w", errors.ErrUnsupported)

// NewRings checks its arguments as on Linux and returns Rings that run on
// plain system calls.
func NewRings(n int, entries uint32) (*Rings, error) {
	if n < 1 {
		return nil, &argerr.OptionError{Option: "fileio.NewRings", Reason: fmt.Sprintf("n = %d: want at least 1 ring", n)}
	}
	if entries == 0 || entries > uring.MaxEntries {
		return nil, &argerr.OptionError{Option: "fileio.NewRings", Reason: fmt.Sprintf("entries = %d is outside 1..%d", entries, uring.MaxEntries)}
	}
	return &Rings{}, nil
}

var (
	defaultOnce  sync.Once
	defaultRings *Rings
)

// Default returns the package's own Rings, which the package-level
// functions use.
func Default() *Rings {
	defaultOnce.Do(func() { defaultRings = &Rings{} })
	return defaultRings
}

// Fallback reports why these Rings run on plain system calls: always,
// off Linux.
func (r *Rings) Fallback() error {
	if r.closed.Load() {
		return uring.ErrClosed
	}
	return errNoIOUring
}

// Len is the number of rings: 0 off Linux.
func (r *Rings) Len() int { return 0 }

// Close marks the Rings closed; a second Close returns uring.ErrClosed.
func (r *Rings) Close() error {
	if r.closed.Swap(true) {
		return uring.ErrClosed
	}
	return nil
}

// NewFile wraps of, which the File then owns (close the File, not of).
func (r *Rings) NewFile(of *os.File) *File {
	if of == nil {
		return nil
	}
	return &File{of: of, fd: -1}
}

// pread and pwrite are the ring paths, never taken here (rings is nil).
func (f *File) pread(b []byte, off int64) (int, error)  { return f.of.ReadAt(b, off) }
func (f *File) pwrite(b []byte, off int64) (int, error) { return f.of.WriteAt(b, off) }

func (f *File) closeGroup() {}

type syncGroup struct{}
