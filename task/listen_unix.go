//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package task

import (
	"net"
	"net/netip"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/sockaddr"
)

// Listen opens a TCP socket listening on addr (port 0: one the kernel
// picks; an unspecified address: every interface, IPv4 and IPv6 for [::])
// and returns its fd, for Accept, and the address it is bound to. backlog
// <= 0 means the system's maximum, as net.Listen uses. SO_REUSEADDR is set
// and the fd is close-on-exec, as net.Listen's. socket(2), bind(2) and
// listen(2) are made here as system calls: none of them waits, so the
// executor is not held up (and the kernels before IORING_OP_BIND and
// LISTEN, 6.11, need no other path). The caller closes the fd (t.Close).
// An error is a *net.OpError, as net.Listen's ("listen tcp 127.0.0.1:80:
// bind: permission denied"), that unwraps to the errno.
func (t *T) Listen(addr netip.AddrPort, backlog int) (int, netip.AddrPort, error) {
	if !addr.IsValid() {
		return -1, netip.AddrPort{}, argError("Listen", "addr", "is not a valid IP address and port")
	}
	addr = netip.AddrPortFrom(addr.Addr().Unmap(), addr.Port())
	if backlog <= 0 {
		backlog = unix.SOMAXCONN
	}
	fail := func(call string, err error) (int, netip.AddrPort, error) {
		return -1, netip.AddrPort{}, &net.OpError{Op: "listen", Net: "tcp", Addr: net.TCPAddrFromAddrPort(addr), Err: os.NewSyscallError(call, err)}
	}
	domain := unix.AF_INET6
	if addr.Addr().Is4() {
		domain = unix.AF_INET
	}
	fd, err := socketCloexec(domain, unix.SOCK_STREAM, 0)
	if err != nil {
		return fail("socket", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return fail("setsockopt", err)
	}
	if err := unix.Bind(fd, sockaddr.FromAddrPort(addr)); err != nil {
		unix.Close(fd)
		return fail("bind", err)
	}
	if err := unix.Listen(fd, backlog); err != nil {
		unix.Close(fd)
		return fail("listen", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return fail("getsockname", err)
	}
	return fd, sockaddr.ToAddrPort(sa), nil
}

// socketCloexec makes a close-on-exec socket. Not every Unix has
// SOCK_CLOEXEC, so ForkLock keeps a fork from seeing the socket before
// FD_CLOEXEC is set, as Go's net does there (Listen is not a hot path).
func socketCloexec(domain, typ, proto int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := unix.Socket(domain, typ, proto)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	return fd, err
}
