//go:build linux

package goio

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

type pconn interface {
	net.PacketConn
	ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error)
	WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error)
	SetReadBuffer(int) error
	SetWriteBuffer(int) error
}

func TestZZPacketDiff(t *testing.T) {
	for _, backend := range []string{"ring"} {
		_ = backend
		rt := newRuntime(t, 1)
		for _, network := range []string{"udp", "udp4", "udp6", "unixgram"} {
			addrFor := func(tag string) string {
				switch network {
				case "udp", "udp4":
					return "127.0.0.1:0"
				case "udp6":
					return "[::1]:0"
				}
				return t.TempDir() + "/" + tag
			}
			on, err := net.ListenPacket(network, addrFor("o"))
			if err != nil {
				t.Fatal(err)
			}
			tn, err := On(rt).ListenPacket(network, addrFor("t"))
			if err != nil {
				t.Fatal(err)
			}
			peer, err := net.ListenPacket(network, addrFor("p"))
			if err != nil {
				t.Fatal(err)
			}
			defer peer.Close()
			norm := func(s string, c net.PacketConn) string {
				s = strings.ReplaceAll(s, c.LocalAddr().String(), "LOCAL")
				s = strings.ReplaceAll(s, peer.LocalAddr().String(), "PEER")
				return s
			}
			steps := []struct {
				name string
				f    func(c pconn) string
			}{
				{"laddr type", func(c pconn) string { return fmt.Sprintf("%T %s", c.LocalAddr(), c.LocalAddr().Network()) }},
				{"writeto peer", func(c pconn) string { n, err := c.WriteTo([]byte("hello"), peer.LocalAddr()); return fmt.Sprint(n, err) }},
				{"peer reads", func(c pconn) string {
					b := make([]byte, 100)
					peer.SetReadDeadline(time.Now().Add(time.Second))
					n, a, err := peer.ReadFrom(b)
					return fmt.Sprint(n, err, string(b[:n]), fmt.Sprintf("%T", a), a)
				}},
				{"peer writes long", func(c pconn) string { n, err := peer.WriteTo([]byte("0123456789"), c.LocalAddr()); return fmt.Sprint(n, err) }},
				{"read short buf", func(c pconn) string {
					b := make([]byte, 4)
					c.SetReadDeadline(time.Now().Add(time.Second))
					n, a, err := c.ReadFrom(b)
					return fmt.Sprint(n, err, string(b[:n]), fmt.Sprintf("%T", a), a)
				}},
				{"peer writes empty", func(c pconn) string { n, err := peer.WriteTo(nil, c.LocalAddr()); return fmt.Sprint(n, err) }},
				{"read empty dgram", func(c pconn) string {
					b := make([]byte, 4)
					c.SetReadDeadline(time.Now().Add(time.Second))
					n, a, err := c.ReadFrom(b)
					return fmt.Sprint(n, err, fmt.Sprintf("%T", a), a)
				}},
				{"read deadline", func(c pconn) string {
					c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
					n, a, err := c.ReadFrom(make([]byte, 4))
					return fmt.Sprint(n, a == nil, err, errors.Is(err, os.ErrDeadlineExceeded))
				}},
				{"read past deadline", func(c pconn) string {
					n, a, err := c.ReadFrom(make([]byte, 4))
					return fmt.Sprint(n, a == nil, err)
				}},
				{"writeto nil", func(c pconn) string { n, err := c.WriteTo([]byte("x"), nil); return fmt.Sprint(n, err) }},
				{"writeto wrong type", func(c pconn) string {
					n, err := c.WriteTo([]byte("x"), &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9})
					return fmt.Sprint(n, err)
				}},
				{"writeto big", func(c pconn) string {
					n, err := c.WriteTo(make([]byte, 70000), peer.LocalAddr())
					return fmt.Sprint(n, err)
				}},
				{"set bufs", func(c pconn) string { return fmt.Sprint(c.SetReadBuffer(1<<16), c.SetWriteBuffer(1<<16), c.SetReadBuffer(-1)) }},
				{"close", func(c pconn) string { return fmt.Sprint(c.Close()) }},
				{"close2", func(c pconn) string { return fmt.Sprint(c.Close()) }},
				{"read after close", func(c pconn) string {
					n, a, err := c.ReadFrom(make([]byte, 4))
					return fmt.Sprint(n, a == nil, err, errors.Is(err, net.ErrClosed))
				}},
				{"write after close", func(c pconn) string {
					n, err := c.WriteTo([]byte("x"), peer.LocalAddr())
					return fmt.Sprint(n, err, errors.Is(err, net.ErrClosed))
				}},
				{"deadline after close", func(c pconn) string { return fmt.Sprint(c.SetDeadline(time.Now())) }},
				{"laddr after close", func(c pconn) string { return fmt.Sprint(c.LocalAddr() != nil) }},
			}
			oc := on.(pconn)
			if network == "unixgram" {
				oc = unixPC{on.(*net.UnixConn)}
			}
			for _, s := range steps {
				if network == "unixgram" && strings.Contains(s.name, "AddrPort") {
					continue
				}
				o := norm(s.f(oc), on)
				g := norm(s.f(tn), tn)
				if o != g {
					t.Errorf("%s %s:\n  net  %q\n  goio %q", network, s.name, o, g)
				}
			}
		}
	}
}

type unixPC struct{ *net.UnixConn }

func (u unixPC) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) { return 0, netip.AddrPort{}, nil }
func (u unixPC) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) { return 0, nil }
