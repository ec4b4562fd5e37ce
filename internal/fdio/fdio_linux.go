//go:build linux

package fdio

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Eventfd returns a non-blocking, close-on-exec eventfd as a pollable
// *os.File (os.NewFile registers a non-blocking fd with Go's netpoller, so
// a Read parks the goroutine, not its thread) and its descriptor, for
// IORING_REGISTER_EVENTFD. Never call the file's Fd method: it makes the
// descriptor blocking.
func Eventfd(name string) (*os.File, int, error) {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, -1, err
	}
	return os.NewFile(uintptr(fd), name), fd, nil
}

// RecvNonblock receives into b from a socket without blocking
// (recv(2) with MSG_DONTWAIT), for callers that try the socket before
// queueing a ring request: EAGAIN means "nothing yet". The error is the
// bare unix.Errno so that the EAGAIN path allocates nothing.
func RecvNonblock(fd int, b []byte) (int, error) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	n, _, errno := unix.Syscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(p), uintptr(len(b)), unix.MSG_DONTWAIT, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// PreadNowait reads into b at off (-1: the file position) without
// waiting (preadv2(2) with RWF_NOWAIT, Linux 4.14): it returns what the page
// cache holds now, possibly short, or EAGAIN when the read would have to
// wait for the device or a lock. For buffered files: on an O_DIRECT file
// RWF_NOWAIT only avoids lock waits and the call still waits for the
// device. The error is the bare unix.Errno so the EAGAIN path allocates
// nothing.
func PreadNowait(fd int, b []byte, off int64) (int, error) {
	iov, lo, hi := oneIovec(b, off)
	n, _, errno := unix.Syscall6(unix.SYS_PREADV2, uintptr(fd), uintptr(unsafe.Pointer(&iov)), 1, lo, hi, unix.RWF_NOWAIT)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// SendNonblock sends b on a socket without blocking (send(2) with
// MSG_DONTWAIT|MSG_NOSIGNAL); EAGAIN means the socket buffer is full. The
// error is the bare unix.Errno.
func SendNonblock(fd int, b []byte) (int, error) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	n, _, errno := unix.Syscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(p), uintptr(len(b)), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// RecvFlags is RecvNonblock with recv flags (MSG_DONTWAIT is added).
func RecvFlags(fd int, b []byte, flags int) (int, error) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	n, _, errno := unix.Syscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(p), uintptr(len(b)), uintptr(flags|unix.MSG_DONTWAIT), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// SendFlags is SendNonblock with send flags (MSG_DONTWAIT|MSG_NOSIGNAL
// are added).
func SendFlags(fd int, b []byte, flags int) (int, error) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	n, _, errno := unix.Syscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(p), uintptr(len(b)), uintptr(flags|unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// PreadCached is PreadNowait for a buffered file (not O_DIRECT, whose
// RWF_NOWAIT reads still wait for the device): a read of up to
// rawCachedMax bytes, which the kernel answers from the page cache or
// refuses with EAGAIN without sleeping, goes in as a raw system call,
// without telling the Go scheduler (as Go's runtime does for calls that
// cannot block): ≈ 15 % less time per cached 4 KiB read than pread(2)
// through the scheduler's syscall hooks. Longer reads, whose copy could
// keep the P from the scheduler for long, are PreadNowait.
func PreadCached(fd int, b []byte, off int64) (int, error) {
	if len(b) > rawCachedMax {
		return PreadNowait(fd, b, off)
	}
	iov, lo, hi := oneIovec(b, off)
	n, _, errno := unix.RawSyscall6(unix.SYS_PREADV2, uintptr(fd), uintptr(unsafe.Pointer(&iov)), 1, lo, hi, unix.RWF_NOWAIT)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// oneIovec is the iovec of b and off split into preadv2/pwritev2's pos_l
// and pos_h (the high half is only used where long is 32 bits).
func oneIovec(b []byte, off int64) (iov unix.Iovec, lo, hi uintptr) {
	if len(b) > 0 {
		iov.Base = &b[0]
		iov.SetLen(len(b))
	}
	return iov, uintptr(off), uintptr(uint64(off) >> (unsafe.Sizeof(uintptr(0))*8 - 1) >> 1)
}

// rawCachedMax is the longest read PreadCached makes raw: copying 64 KiB
// from the page cache takes a few microseconds.
const rawCachedMax = 64 << 10

// PwriteNowait writes b at off (-1: the file position) without waiting
// (pwritev2(2) with RWF_NOWAIT, Linux 4.14): EAGAIN when the write would
// have to wait (a full pipe or socket buffer, a lock, allocation).
func PwriteNowait(fd int, b []byte, off int64) (int, error) {
	iov, lo, hi := oneIovec(b, off)
	n, _, errno := unix.Syscall6(unix.SYS_PWRITEV2, uintptr(fd), uintptr(unsafe.Pointer(&iov)), 1, lo, hi, unix.RWF_NOWAIT)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// Recvmsg is recvmsg(2) with a msghdr the caller built (MSG_DONTWAIT is
// added); the error is the bare unix.Errno.
func Recvmsg(fd int, msg *unix.Msghdr, flags int) (int, error) {
	n, _, errno := unix.Syscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(msg)), uintptr(flags|unix.MSG_DONTWAIT))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// Sendmsg is sendmsg(2) with a msghdr the caller built (MSG_DONTWAIT and
// MSG_NOSIGNAL are added); the error is the bare unix.Errno.
func Sendmsg(fd int, msg *unix.Msghdr, flags int) (int, error) {
	n, _, errno := unix.Syscall(unix.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(msg)), uintptr(flags|unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// Mincore fills vec with one byte per page of the mapping b (bit 0: the
// page is resident), mincore(2): a look at the page cache that, unlike a
// RWF_NOWAIT read, starts no readahead.
func Mincore(b []byte, vec []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("fdio.Mincore: b is empty: %w", unix.EINVAL)
	}
	if pages := (len(b) + os.Getpagesize() - 1) / os.Getpagesize(); len(vec) < pages {
		return fmt.Errorf("fdio.Mincore: vec has %d bytes, the mapping %d pages: %w", len(vec), pages, unix.EINVAL)
	}
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return errno
	}
	return nil
}
