//go:build linux

package fdio

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// SetsockoptInt is setsockopt(2) of an int option.
func SetsockoptInt(fd, level, opt, v int) error {
	return unix.SetsockoptInt(fd, level, opt, v)
}

// GetsockoptInt is getsockopt(2) of an int option.
func GetsockoptInt(fd, level, opt int) (int, error) {
	v, err := unix.GetsockoptInt(fd, level, opt)
	return v, err
}

// SetLinger is setsockopt(2) of SO_LINGER: on with sec >= 0, off below.
func SetLinger(fd, sec int) error {
	l := unix.Linger{}
	if sec >= 0 {
		l.Onoff, l.Linger = 1, int32(sec)
	}
	return unix.SetsockoptLinger(fd, unix.SOL_SOCKET, unix.SO_LINGER, &l)
}

// GetLinger is getsockopt(2) of SO_LINGER: the seconds, or -1 when off.
func GetLinger(fd int) (int, error) {
	l, err := unix.GetsockoptLinger(fd, unix.SOL_SOCKET, unix.SO_LINGER)
	if err != nil {
		return 0, err
	}
	if l.Onoff == 0 {
		return -1, nil
	}
	return int(l.Linger), nil
}

// Getsockname is getsockname(2).
func Getsockname(fd int) (unix.Sockaddr, error) {
	sa, err := unix.Getsockname(fd)
	return sa, err
}

// Getpeername is getpeername(2).
func Getpeername(fd int) (unix.Sockaddr, error) {
	sa, err := unix.Getpeername(fd)
	return sa, err
}

// Shutdown is shutdown(2) (how: unix.SHUT_RD, SHUT_WR, SHUT_RDWR).
func Shutdown(fd, how int) error { return unix.Shutdown(fd, how) }

// Fstat is fstat(2), into the syscall package's Stat_t (what
// os.FileInfo.Sys holds for an *os.File).
func Fstat(fd int, st *syscall.Stat_t) error { return syscall.Fstat(fd, st) }

// Seek is lseek(2).
func Seek(fd int, off int64, whence int) (int64, error) { return unix.Seek(fd, off, whence) }

// Appends reports whether fd's open file description has O_APPEND
// (fcntl F_GETFL).
func Appends(fd int) (bool, error) {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return false, err
	}
	return fl&unix.O_APPEND != 0, nil
}

// Ftruncate is ftruncate(2).
func Ftruncate(fd int, size int64) error { return unix.Ftruncate(fd, size) }

// Pipe makes a pipe (pipe2(2) with O_CLOEXEC; blocking ends) and asks for
// size bytes of capacity (fcntl F_SETPIPE_SZ). A refused size (EPERM above
// /proc/sys/fs/pipe-max-size for an unprivileged process) keeps the
// default; the capacity is returned.
func Pipe(size int) (r, w, capacity int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, 0, err
	}
	n, err := unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, size)
	if err != nil {
		n, err = unix.FcntlInt(uintptr(p[1]), unix.F_GETPIPE_SZ, 0)
		if err != nil {
			_ = unix.Close(p[0])
			_ = unix.Close(p[1])
			return -1, -1, 0, err
		}
	}
	return p[0], p[1], n, nil
}

// Socket is socket(2) with SOCK_CLOEXEC added.
func Socket(domain, typ, proto int) (int, error) {
	fd, err := unix.Socket(domain, typ|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return -1, err
	}
	return fd, nil
}

// ConnectNow connects fd to sa without waiting: fd is made non-blocking
// for the connect(2) and blocking again after it. Meant for Unix sockets,
// which connect at once or fail (EAGAIN: the listener's backlog is full;
// net does the same).
func ConnectNow(fd int, sa unix.Sockaddr) error {
	if err := unix.SetNonblock(fd, true); err != nil {
		return err
	}
	cerr := unix.Connect(fd, sa)
	if err := unix.SetNonblock(fd, false); err != nil && cerr == nil {
		return err
	}
	return cerr
}

// Connect is connect(2), for a socket that connects at once or fails
// (a non-blocking Unix socket).
func Connect(fd int, sa unix.Sockaddr) error { return unix.Connect(fd, sa) }

// Dup duplicates fd (F_DUPFD_CLOEXEC).
func Dup(fd int) (int, error) {
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	return nfd, nil
}
