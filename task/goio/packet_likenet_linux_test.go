//go:build linux

package goio

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A PacketConn answers what net's answers, call by call, for udp, udp4,
// udp6 and unixgram: the local address's type, a datagram sent and read
// back with its sender, a datagram longer than the buffer (cut, no error),
// an empty one, a read deadline and a read after it, a datagram too long
// to send, SetReadBuffer and SetWriteBuffer, Close twice, and reads,
// writes and deadlines after Close. A bad argument (a nil or mistyped
// address) is EINVAL on both sides; goio's error names the argument
// (net's says "invalid argument"), so only that is compared for them.
func TestPacketConnCallsLikeNet(t *testing.T) {
	rt := newRuntime(t, 1)
	for _, network := range []string{"udp", "udp4", "udp6", "unixgram"} {
		t.Run(network, func(t *testing.T) {
			addr := func(tag string) string {
				switch network {
				case "udp6":
					return "[::1]:0"
				case "unixgram":
					return t.TempDir() + "/" + tag
				}
				return "127.0.0.1:0"
			}
			nc, err := net.ListenPacket(network, addr("net"))
			require.NoError(t, err)
			defer nc.Close()
			gc, err := On(rt).ListenPacket(network, addr("goio"))
			require.NoError(t, err)
			defer gc.Close()
			peer, err := net.ListenPacket(network, addr("peer"))
			require.NoError(t, err)
			defer peer.Close()
			type conn interface {
				net.PacketConn
				SetReadBuffer(int) error
				SetWriteBuffer(int) error
			}
			str := func(v ...any) string { return fmt.Sprint(v...) }
			einval := func(err error) string { return str(err != nil, errors.Is(err, syscall.EINVAL)) }
			read := func(c conn, n int) string {
				b := make([]byte, n)
				require.NoError(t, c.SetReadDeadline(time.Now().Add(hangGuard)))
				m, from, err := c.ReadFrom(b)
				return str(m, err, string(b[:m]), fmt.Sprintf(" %T ", from), from)
			}
			steps := []struct {
				name string
				call func(c conn) string
			}{
				{"local address", func(c conn) string { return fmt.Sprintf("%T %s", c.LocalAddr(), c.LocalAddr().Network()) }},
				{"send", func(c conn) string { n, err := c.WriteTo([]byte("hello"), peer.LocalAddr()); return str(n, err) }},
				{"the peer reads", func(c conn) string {
					b := make([]byte, 16)
					require.NoError(t, peer.SetReadDeadline(time.Now().Add(hangGuard)))
					n, from, err := peer.ReadFrom(b)
					return str(n, err, string(b[:n]), fmt.Sprintf(" %T ", from), from)
				}},
				{"read a longer datagram", func(c conn) string {
					_, err := peer.WriteTo([]byte("0123456789"), c.LocalAddr())
					require.NoError(t, err)
					return read(c, 4)
				}},
				{"read an empty datagram", func(c conn) string {
					_, err := peer.WriteTo(nil, c.LocalAddr())
					require.NoError(t, err)
					return read(c, 4)
				}},
				{"read until the deadline", func(c conn) string {
					require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Millisecond)))
					n, from, err := c.ReadFrom(make([]byte, 4))
					return str(n, from == nil, err, errors.Is(err, os.ErrDeadlineExceeded))
				}},
				{"read after the deadline", func(c conn) string {
					n, from, err := c.ReadFrom(make([]byte, 4))
					return str(n, from == nil, err)
				}},
				{"send too much", func(c conn) string {
					n, err := c.WriteTo(make([]byte, 300<<10), peer.LocalAddr())
					return str(n, err != nil, errors.Is(err, syscall.EMSGSIZE))
				}},
				{"send to nil", func(c conn) string { n, err := c.WriteTo([]byte("x"), nil); return str(n, einval(err)) }},
				{"send to a TCP address", func(c conn) string {
					n, err := c.WriteTo([]byte("x"), &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9})
					return str(n, einval(err))
				}},
				{"buffer sizes", func(c conn) string { return str(c.SetReadBuffer(1<<16), c.SetWriteBuffer(1<<16)) }},
				{"close", func(c conn) string { return str(c.Close()) }},
				{"close again", func(c conn) string { return str(c.Close()) }},
				{"read after close", func(c conn) string {
					n, from, err := c.ReadFrom(make([]byte, 4))
					return str(n, from == nil, err, errors.Is(err, net.ErrClosed))
				}},
				{"send after close", func(c conn) string {
					n, err := c.WriteTo([]byte("x"), peer.LocalAddr())
					return str(n, err, errors.Is(err, net.ErrClosed))
				}},
				{"deadline after close", func(c conn) string { return str(c.SetDeadline(time.Now())) }},
			}
			for _, s := range steps {
				clean := func(out string, c conn) string {
					out = strings.ReplaceAll(out, c.LocalAddr().String(), "LOCAL")
					return strings.ReplaceAll(out, peer.LocalAddr().String(), "PEER")
				}
				want := clean(s.call(nc.(conn)), nc.(conn))
				require.Equal(t, want, clean(s.call(gc), gc), s.name)
			}
		})
	}
}
