//go:build linux

package bench

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// listen opens a loopback TCP listener; reusePort lets several listeners
// (one per executor) share the address.
func listen(addr string, reusePort bool) (net.Listener, error) {
	lc := net.ListenConfig{}
	if reusePort {
		lc.Control = func(_, _ string, rc syscall.RawConn) error {
			var serr error
			if err := rc.Control(func(fd uintptr) {
				serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
			}); err != nil {
				return err
			}
			return serr
		}
	}
	return lc.Listen(context.Background(), "tcp", addr)
}

// ownFd takes the socket of a Go listener or connection out of Go's
// poller: it returns a duplicate fd (closed with the returned file) and
// closes the original, so only the ring uses the socket.
func ownFd(c interface {
	File() (*os.File, error)
	Close() error
}) (*os.File, int, error) {
	f, err := c.File()
	if err != nil {
		return nil, -1, err
	}
	c.Close()
	return f, int(f.Fd()), nil
}

func tcpConnFd(c net.Conn) (*os.File, int, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil, -1, errors.New("not a TCP connection")
	}
	return ownFd(tc)
}

func tcpListenerFd(l net.Listener) (*os.File, int, error) {
	tl, ok := l.(*net.TCPListener)
	if !ok {
		return nil, -1, errors.New("not a TCP listener")
	}
	return ownFd(tl)
}
