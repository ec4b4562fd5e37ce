//go:build linux

package task

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// t.Listen makes a socket Go's net can dial, bound where asked (a port the
// kernel picked), on which t.Accept returns the dialer's connection: its
// peer is the dialer's address, and bytes sent arrive.
func TestListenAccept(t *testing.T) {
	ex := newExec(t)
	for _, host := range []string{"127.0.0.1", "::1"} {
		t.Run(host, func(t *testing.T) {
			if host == "::1" {
				if c, err := net.Listen("tcp6", "[::1]:0"); err != nil {
					t.Skipf("no IPv6 loopback here: %v", err)
				} else {
					c.Close()
				}
			}
			type listened struct {
				fd    int
				bound netip.AddrPort
			}
			var l listened
			require.NoError(t, runTask(t, ex, func(tk *T) (err error) {
				l.fd, l.bound, err = tk.Listen(netip.AddrPortFrom(netip.MustParseAddr(host), 0), 0)
				return err
			}))
			defer unix.Close(l.fd)
			require.Equal(t, host, l.bound.Addr().String())
			require.NotZero(t, l.bound.Port())

			dialed := make(chan net.Conn, 1)
			go func() {
				c, err := net.Dial("tcp", l.bound.String())
				if err != nil {
					dialed <- nil
					return
				}
				_, _ = c.Write([]byte("hello"))
				dialed <- c
			}()
			var got [5]byte
			var peer netip.AddrPort
			require.NoError(t, runTask(t, ex, func(tk *T) error {
				fd, p, err := tk.Accept(l.fd, 0)
				if err != nil {
					return err
				}
				defer tk.Close(fd)
				peer = p
				for n := 0; n < len(got); {
					m, err := tk.Recv(fd, got[n:], 0)
					if err != nil {
						return err
					}
					if m == 0 {
						return io.ErrUnexpectedEOF
					}
					n += m
				}
				return nil
			}))
			c := <-dialed
			require.NotNil(t, c, "dial failed")
			defer c.Close()
			require.Equal(t, "hello", string(got[:]))
			require.Equal(t, c.LocalAddr().(*net.TCPAddr).AddrPort().String(), peer.String())
		})
	}
}

// A bad address is an *ArgError naming it; a taken port is net.Listen's
// kind of error (a *net.OpError naming bind, unwrapping to EADDRINUSE),
// and the failed socket is closed (TestMain's leak check).
func TestListenErrors(t *testing.T) {
	ex := newExec(t)
	require.NoError(t, runTask(t, ex, func(tk *T) error {
		_, _, err := tk.Listen(netip.AddrPort{}, 0)
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Arg != "addr" || !errors.Is(err, unix.EINVAL) {
			return errors.New("zero addr: got " + errString(err) + ", want an *ArgError naming addr")
		}
		fd, bound, err := tk.Listen(netip.MustParseAddrPort("127.0.0.1:0"), 16)
		if err != nil {
			return err
		}
		defer tk.Close(fd)
		_, _, err = tk.Listen(bound, 0)
		var oe *net.OpError
		if !errors.As(err, &oe) || oe.Op != "listen" || !errors.Is(err, unix.EADDRINUSE) {
			return errors.New("taken port: got " + errString(err) + ", want a listen *net.OpError with EADDRINUSE")
		}
		if oe.Err.Error() != "bind: address already in use" {
			return errors.New("taken port: cause " + oe.Err.Error() + ", want bind: address already in use")
		}
		return nil
	}))
}
