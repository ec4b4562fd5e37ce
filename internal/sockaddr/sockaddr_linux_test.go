package sockaddr_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// Put and Get, FromAddrPort and ToAddrPort round-trip IPv4 and IPv6
// addresses; a zone becomes the scope id and back.
func TestRoundTrips(t *testing.T) {
	for _, s := range []string{"127.0.0.1:80", "[::1]:443", "[2001:db8::1]:65535", "0.0.0.0:0"} {
		ap := netip.MustParseAddrPort(s)
		var b [128]byte
		n := sockaddr.Put(&b, ap)
		want := uint32(unix.SizeofSockaddrInet6)
		if ap.Addr().Is4() {
			want = unix.SizeofSockaddrInet4
		}
		require.Equal(t, want, n, s)
		require.Equal(t, ap, sockaddr.Get(b[:], n), s)
		require.Equal(t, netip.AddrPort{}, sockaddr.Get(b[:], n-1), "%s: too short", s)
		require.Equal(t, ap, sockaddr.ToAddrPort(sockaddr.FromAddrPort(ap)), s)
	}
	require.Equal(t, netip.AddrPort{}, sockaddr.ToAddrPort(&unix.SockaddrUnix{Name: "/x"}))

	require.Equal(t, uint32(0), sockaddr.ZoneIndex(""))
	require.Equal(t, uint32(7), sockaddr.ZoneIndex("7"))
	require.Equal(t, "", sockaddr.ZoneName(0))
	lo := sockaddr.ZoneIndex("lo")
	require.NotZero(t, lo, "the loopback interface")
	require.Equal(t, "lo", sockaddr.ZoneName(lo))
	ap := netip.MustParseAddrPort("[fe80::1]:9")
	zoned := sockaddr.Zoned(ap, lo)
	require.Equal(t, "lo", zoned.Addr().Zone())
	require.Equal(t, ap, sockaddr.Zoned(ap, 0))
	sa := sockaddr.FromAddrPort(zoned).(*unix.SockaddrInet6)
	require.Equal(t, lo, sa.ZoneId)
}
