//go:build linux

package sqe

import (
	"strconv"
	"strings"
	"time"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// Path returns p as a NUL-terminated byte string for the path arguments of
// the builders, or an error when p holds a NUL. It allocates; the result
// belongs to the caller, who keeps it alive until the request's CQE.
func Path(p string) ([]byte, error) {
	return AppendPath(nil, p)
}

// AppendPath appends p and a terminating NUL to dst (allocating nothing
// when dst has the capacity) and returns the result, or dst and an error
// when p holds a NUL.
func AppendPath(dst []byte, p string) ([]byte, error) {
	if i := strings.IndexByte(p, 0); i >= 0 {
		return dst, argErr("Path", "p", "has a NUL at byte "+strconv.Itoa(i))
	}
	dst = append(dst, p...)
	return append(dst, 0), nil
}

// Iovecs fills dst[:0] with one iovec per buffer of bufs and returns it
// (allocating only when cap(dst) < len(bufs)). An empty buffer gives an
// iovec of length 0. More than IOVMax buffers is an error. The iovecs point
// into bufs: the caller keeps both alive until the request's CQE.
func Iovecs(dst []unix.Iovec, bufs [][]byte) ([]unix.Iovec, error) {
	if len(bufs) > IOVMax {
		return dst[:0], argErr("Iovecs", "len(bufs)", "= "+strconv.Itoa(len(bufs))+" exceeds IOV_MAX (1024)")
	}
	dst = dst[:0]
	for _, b := range bufs {
		var v unix.Iovec
		if len(b) > 0 {
			v.Base = &b[0]
			v.SetLen(len(b))
		}
		dst = append(dst, v)
	}
	return dst, nil
}

// SetTimespec stores d in ts (seconds and nanoseconds). A negative d is an
// error and leaves ts untouched.
func SetTimespec(ts *sys.Timespec, d time.Duration) error {
	if d < 0 {
		return argErr("SetTimespec", "d", "= "+d.String()+" is negative")
	}
	ts.Sec = int64(d / time.Second)
	ts.Nsec = int64(d % time.Second)
	return nil
}

// checkTimeout validates a caller-owned timespec target and a duration.
func checkTimeout(fn string, ts *sys.Timespec, d time.Duration) error {
	if ts == nil {
		return argErr(fn, "ts", "is nil")
	}
	if d < 0 {
		return argErr(fn, "d", "= "+d.String()+" is negative")
	}
	return nil
}

// fillTimespec stores d (already checked) in ts.
func fillTimespec(ts *sys.Timespec, d time.Duration) {
	ts.Sec = int64(d / time.Second)
	ts.Nsec = int64(d % time.Second)
}
