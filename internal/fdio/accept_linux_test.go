//go:build linux

package fdio

import (
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// listenRaw is a non-blocking listening socket of family on loopback and
// its address.
func listenRaw(t *testing.T, family int, addr netip.Addr) (int, netip.AddrPort) {
	t.Helper()
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { unix.Close(fd) })
	var sa unix.Sockaddr = &unix.SockaddrInet6{Addr: addr.As16()}
	if family == unix.AF_INET {
		sa = &unix.SockaddrInet4{Addr: addr.As4()}
	}
	require.NoError(t, unix.Bind(fd, sa))
	require.NoError(t, unix.Listen(fd, 8))
	got, err := unix.Getsockname(fd)
	require.NoError(t, err)
	port := 0
	switch a := got.(type) {
	case *unix.SockaddrInet4:
		port = a.Port
	case *unix.SockaddrInet6:
		port = a.Port
	}
	return fd, netip.AddrPortFrom(addr, uint16(port))
}

// TestAccept4: the peer's address and port come back decoded for IPv4 and
// IPv6, the flags reach the new socket, an empty queue says EAGAIN and a
// bad fd EBADF.
func TestAccept4(t *testing.T) {
	for _, tc := range []struct {
		name   string
		family int
		addr   netip.Addr
	}{
		{"ipv4", unix.AF_INET, netip.MustParseAddr("127.0.0.1")},
		{"ipv6", unix.AF_INET6, netip.IPv6Loopback()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lfd, ap := listenRaw(t, tc.family, tc.addr)
			_, _, _, err := Accept4(lfd, 0)
			require.ErrorIs(t, err, unix.EAGAIN, "nothing queued on a non-blocking listener")
			c, err := net.Dial("tcp", ap.String())
			require.NoError(t, err)
			defer c.Close()
			var nfd int
			var peer netip.AddrPort
			var scope uint32
			for {
				nfd, peer, scope, err = Accept4(lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
				if err != unix.EAGAIN {
					break
				}
				_, _ = unix.Poll([]unix.PollFd{{Fd: int32(lfd), Events: unix.POLLIN}}, -1)
			}
			require.NoError(t, err)
			defer unix.Close(nfd)
			require.Equal(t, c.LocalAddr().(*net.TCPAddr).AddrPort(), peer)
			require.Zero(t, scope, "loopback has no scope")
			fl, err := unix.FcntlInt(uintptr(nfd), unix.F_GETFL, 0)
			require.NoError(t, err)
			require.NotZero(t, fl&unix.O_NONBLOCK, "SOCK_NONBLOCK reached the new socket")
			fdfl, err := unix.FcntlInt(uintptr(nfd), unix.F_GETFD, 0)
			require.NoError(t, err)
			require.NotZero(t, fdfl&unix.FD_CLOEXEC)
		})
	}
	_, _, _, err := Accept4(-1, 0)
	require.ErrorIs(t, err, unix.EBADF)
}
