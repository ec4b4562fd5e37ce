//go:build linux

package sqe

import (
	"bytes"
	"strconv"

	"golang.org/x/sys/unix"
)

const (
	maxInt32  = 1<<31 - 1
	maxUint32 = 1<<32 - 1

	// IOVMax is the most iovecs one vectored request may carry (IOV_MAX).
	IOVMax = 1024
)

// checkFd accepts 0 <= fd <= MaxInt32.
func checkFd(fn, arg string, fd int) error {
	if fd < 0 {
		return argErr(fn, arg, "= "+strconv.Itoa(fd)+" is negative")
	}
	if fd > maxInt32 {
		return argErr(fn, arg, "= "+strconv.Itoa(fd)+" exceeds 31 bits")
	}
	return nil
}

// checkDirfd accepts unix.AT_FDCWD or a valid fd.
func checkDirfd(fn, arg string, fd int) error {
	if fd == unix.AT_FDCWD {
		return nil
	}
	if fd < 0 || fd > maxInt32 {
		return argErr(fn, arg, "= "+strconv.Itoa(fd)+" is neither AT_FDCWD nor a valid fd")
	}
	return nil
}

// checkLen32 accepts lengths that fit the 32-bit len field.
func checkLen32(fn, arg string, n int) error {
	if uint64(n) > maxUint32 {
		return argErr(fn, arg, "= "+strconv.Itoa(n)+" exceeds 32 bits")
	}
	return nil
}

// checkOff accepts offsets >= -1 (-1: the current file position).
func checkOff(fn, arg string, off int64) error {
	if off < -1 {
		return argErr(fn, arg, "= "+strconv.FormatInt(off, 10)+" is below -1")
	}
	return nil
}

// checkIov accepts at most IOVMax iovecs.
func checkIov(fn, arg string, iov []unix.Iovec) error {
	if len(iov) > IOVMax {
		return argErr(fn, "len("+arg+")", "= "+strconv.Itoa(len(iov))+" exceeds IOV_MAX (1024)")
	}
	return nil
}

// checkPath accepts a NUL-terminated byte string without an interior NUL.
func checkPath(fn, arg string, p []byte) error {
	n := len(p)
	if n == 0 || p[n-1] != 0 {
		return argErr(fn, arg, "is not NUL-terminated (use sqe.Path)")
	}
	if i := bytes.IndexByte(p[:n-1], 0); i >= 0 {
		return argErr(fn, arg, "has a NUL at byte "+strconv.Itoa(i))
	}
	return nil
}

// checkFlags accepts only the bits in known.
func checkFlags(fn, arg string, v, known uint32) error {
	if v&^known != 0 {
		return argErr(fn, arg, "has unknown bits 0x"+strconv.FormatUint(uint64(v&^known), 16))
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// checkFlags32 rejects a flags argument that does not fit the SQE's 32-bit
// flags field: as a C int (negative down to MinInt32) or an unsigned word.
func checkFlags32(fn, arg string, v int) error {
	if int64(v) < -1<<31 || int64(v) > 1<<32-1 {
		return argErr(fn, arg, "= "+strconv.FormatInt(int64(v), 16)+" (hex) does not fit the 32-bit flags field")
	}
	return nil
}
