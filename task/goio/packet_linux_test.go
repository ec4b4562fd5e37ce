//go:build linux

package goio

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

// listenPacketBoth makes the runtime's and net's PacketConn with the same
// arguments, closed at the end of the test.
func listenPacketBoth(t *testing.T, rt *task.Runtime, network, addr, addr2 string) (*PacketConn, net.PacketConn) {
	t.Helper()
	pc, err := On(rt).ListenPacket(network, addr)
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	npc, err := net.ListenPacket(network, addr2)
	require.NoError(t, err)
	t.Cleanup(func() { npc.Close() })
	return pc, npc
}

// Datagrams both ways between the runtime's PacketConn and net's, for
// UDP (IPv4, and IPv4 on a dual-stack socket) and unixgram: the data, the
// sender's address as net reports it, and net's handling of a datagram
// longer than the buffer (the rest discarded) and of an empty one.
func TestPacketConnLikeNet(t *testing.T) {
	rt := newRuntime(t, 1)
	dir := t.TempDir()
	for _, tc := range []struct{ network, a, b string }{
		{"udp", "127.0.0.1:0", "127.0.0.1:0"},
		{"udp4", "127.0.0.1:0", "127.0.0.1:0"},
		{"udp", ":0", "127.0.0.1:0"},
		{"unixgram", filepath.Join(dir, "a"), filepath.Join(dir, "b")},
	} {
		pc, npc := listenPacketBoth(t, rt, tc.network, tc.a, tc.b)
		require.IsType(t, npc.LocalAddr(), pc.LocalAddr())
		require.Equal(t, npc.LocalAddr().Network(), pc.LocalAddr().Network(), "%s", tc.network)
		to := pc.LocalAddr()
		if ua, ok := to.(*net.UDPAddr); ok && ua.IP.IsUnspecified() {
			to = &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: ua.Port}
		}
		// net -> runtime
		_, err := npc.WriteTo([]byte("hello from net"), to)
		require.NoError(t, err)
		buf := make([]byte, 64)
		n, from, err := pc.ReadFrom(buf)
		require.NoError(t, err, tc.network)
		require.Equal(t, "hello from net", string(buf[:n]))
		require.Equal(t, npc.LocalAddr().String(), from.String(), "%s: the sender", tc.network)
		require.IsType(t, npc.LocalAddr(), from)
		// runtime -> net, answering to the address ReadFrom gave
		n, err = pc.WriteTo([]byte("hello from the runtime"), from)
		require.NoError(t, err)
		require.Equal(t, 22, n)
		n, nfrom, err := npc.ReadFrom(buf)
		require.NoError(t, err)
		require.Equal(t, "hello from the runtime", string(buf[:n]))
		if tc.a != ":0" {
			require.Equal(t, pc.LocalAddr().String(), nfrom.String())
		}
		// Too long for the buffer, then empty: both sides read the same.
		for _, dg := range [][]byte{bytes.Repeat([]byte("x"), 100), {}} {
			_, err = npc.WriteTo(dg, to)
			require.NoError(t, err)
			_, err = npc.WriteTo(dg, npc.LocalAddr())
			require.NoError(t, err)
			small := make([]byte, 10)
			rn, raddr, rerr := pc.ReadFrom(small)
			nn, naddr, nerr := npc.ReadFrom(small)
			require.Equal(t, nerr, rerr)
			require.Equal(t, nn, rn, "%s: a %d-byte datagram into 10 bytes", tc.network, len(dg))
			require.Equal(t, naddr.String(), raddr.String())
		}
	}
}

// A unixgram datagram from an unnamed socket has no sender address (nil),
// as net reports it; the path stays after Close, as net's.
func TestPacketConnUnixgramUnnamedSender(t *testing.T) {
	rt := newRuntime(t, 1)
	dir := t.TempDir()
	pc, npc := listenPacketBoth(t, rt, "unixgram", filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	for _, recv := range []net.PacketConn{pc, npc} {
		c, err := net.DialUnix("unixgram", nil, recv.LocalAddr().(*net.UnixAddr))
		require.NoError(t, err)
		_, err = c.Write([]byte("anon"))
		require.NoError(t, err)
		c.Close()
		buf := make([]byte, 8)
		n, from, err := recv.ReadFrom(buf)
		require.NoError(t, err)
		require.Equal(t, "anon", string(buf[:n]))
		require.Nil(t, from, "%T: an unnamed sender", recv)
	}
	require.NoError(t, pc.Close())
	require.NoError(t, npc.Close())
	for _, p := range []string{"a", "b"} {
		_, err := os.Stat(filepath.Join(dir, p))
		require.NoError(t, err, "net leaves a unixgram path after Close, and so does the runtime")
	}
}

// Deadlines and Close end a ReadFrom in flight as they do on net's; after
// Close everything fails with net.ErrClosed.
func TestPacketConnDeadlineAndClose(t *testing.T) {
	rt := newRuntime(t, 1)
	pc, npc := listenPacketBoth(t, rt, "udp", "127.0.0.1:0", "127.0.0.1:0")
	for _, c := range []net.PacketConn{npc, pc} {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
		_, _, err := c.ReadFrom(make([]byte, 8))
		require.ErrorIs(t, err, os.ErrDeadlineExceeded, "%T", c)
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		require.True(t, ne.Timeout())
		require.NoError(t, c.SetReadDeadline(time.Time{}))
		errc := make(chan error, 1)
		go func() { _, _, err := c.ReadFrom(make([]byte, 8)); errc <- err }()
		time.Sleep(10 * time.Millisecond)
		require.NoError(t, c.Close())
		require.ErrorIs(t, <-errc, net.ErrClosed, "%T", c)
		_, err = c.WriteTo([]byte("x"), c.LocalAddr())
		require.ErrorIs(t, err, net.ErrClosed)
		require.ErrorIs(t, c.Close(), net.ErrClosed)
		require.ErrorIs(t, c.SetDeadline(time.Now()), net.ErrClosed)
	}
}

// Bad arguments are refused with an *task.ArgError naming them inside net's
// *net.OpError; networks as net.ListenPacket answers them.
func TestPacketConnBadArguments(t *testing.T) {
	rt := newRuntime(t, 1)
	pc, err := On(rt).ListenPacket("udp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer pc.Close()
	upc, err := On(rt).ListenPacket("unixgram", filepath.Join(t.TempDir(), "u"))
	require.NoError(t, err)
	defer upc.Close()
	for _, tc := range []struct {
		arg string
		err error
	}{
		{"addr", func() error { _, err := pc.WriteTo([]byte("x"), nil); return err }()},
		{"addr", func() error { _, err := pc.WriteTo([]byte("x"), (*net.UDPAddr)(nil)); return err }()},
		{"addr", func() error {
			_, err := pc.WriteTo([]byte("x"), &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1})
			return err
		}()},
		{"addr", func() error {
			_, err := pc.WriteTo([]byte("x"), &net.UDPAddr{IP: net.ParseIP("::1"), Port: 1})
			return err
		}()},
		{"addr", func() error { _, err := pc.WriteToUDPAddrPort([]byte("x"), netip.AddrPort{}); return err }()},
		{"addr", func() error {
			_, err := upc.WriteTo([]byte("x"), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1})
			return err
		}()},
		{"addr", func() error { _, err := upc.WriteTo([]byte("x"), &net.UnixAddr{Name: "", Net: "unixgram"}); return err }()},
		{"network", func() error {
			_, err := upc.WriteToUDPAddrPort([]byte("x"), netip.MustParseAddrPort("127.0.0.1:1"))
			return err
		}()},
		{"network", func() error { _, _, err := upc.ReadFromUDPAddrPort(make([]byte, 1)); return err }()},
		{"bytes", pc.SetReadBuffer(-1)},
		{"network", func() error { _, err := On(rt).ListenPacket("tcp", "127.0.0.1:0"); return err }()},
	} {
		var ae *task.ArgError
		require.ErrorAs(t, tc.err, &ae, "%v", tc.err)
		require.Equal(t, tc.arg, ae.Arg, "%v", tc.err)
		var op *net.OpError
		require.ErrorAs(t, tc.err, &op)
		require.ErrorIs(t, tc.err, unix.EINVAL)
	}
	for _, tc := range []struct{ network, addr string }{{"bogus", "x"}, {"udp", "127.0.0.1"}, {"udp6", "127.0.0.1:0"}} {
		_, nerr := net.ListenPacket(tc.network, tc.addr)
		_, rerr := On(rt).ListenPacket(tc.network, tc.addr)
		require.Error(t, nerr)
		require.Equal(t, nerr.Error(), rerr.Error())
	}
}

// The netip forms move datagrams without allocating; IPv4 senders on a
// dual-stack socket come as IPv4-mapped addresses, as net's.
func TestPacketConnAddrPort(t *testing.T) {
	rt := newRuntime(t, 1)
	a, err := On(rt).ListenPacket("udp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer a.Close()
	b, err := On(rt).ListenPacket("udp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer b.Close()
	ap, bp := a.LocalAddr().(*net.UDPAddr).AddrPort(), b.LocalAddr().(*net.UDPAddr).AddrPort()
	msg := []byte("ping")
	buf := make([]byte, 16)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := a.WriteToUDPAddrPort(msg, bp); err != nil {
			panic(err)
		}
		n, from, err := b.ReadFromUDPAddrPort(buf)
		if err != nil || n != 4 || from != ap {
			panic(fmt.Sprint(n, from, err))
		}
	})
	require.Zero(t, allocs)

	ds, err := On(rt).ListenPacket("udp", ":0") // dual-stack where the kernel has IPv6
	require.NoError(t, err)
	defer ds.Close()
	nds, err := net.ListenUDP("udp", &net.UDPAddr{})
	require.NoError(t, err)
	defer nds.Close()
	for _, port := range []int{ds.LocalAddr().(*net.UDPAddr).Port, nds.LocalAddr().(*net.UDPAddr).Port} {
		_, err := a.WriteToUDPAddrPort(msg, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port)))
		require.NoError(t, err)
	}
	_, rfrom, err := ds.ReadFromUDPAddrPort(buf)
	require.NoError(t, err)
	_, nfrom, err := nds.ReadFromUDPAddrPort(buf)
	require.NoError(t, err)
	require.Equal(t, nfrom, rfrom)
	_, err = ds.WriteToUDPAddrPort(msg, ap) // an IPv4 peer from a dual-stack socket
	require.NoError(t, err)
	_, from, err := a.ReadFromUDPAddrPort(buf)
	require.NoError(t, err)
	require.Equal(t, ds.LocalAddr().(*net.UDPAddr).Port, int(from.Port()))
}
