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

// PutUnix and GetUnix round-trip a path (NUL-terminated, counted) and an
// abstract name ('@': a leading NUL, no terminator); a name that does not
// fit is refused; an unnamed socket, another family or a short sockaddr
// decode as "". The bytes are what the kernel takes: bind(2) to the path
// and getsockname(2) answer the same name.
func TestUnixNames(t *testing.T) {
	var b [128]byte
	path := t.TempDir() + "/s"
	n := sockaddr.PutUnix(&b, path)
	require.Equal(t, uint32(2+len(path)+1), n)
	require.Equal(t, path, sockaddr.GetUnix(b[:], n))
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	require.NoError(t, unix.Bind(fd, &unix.SockaddrUnix{Name: path}))
	sa, err := unix.Getsockname(fd)
	require.NoError(t, err)
	require.Equal(t, path, sa.(*unix.SockaddrUnix).Name)

	n = sockaddr.PutUnix(&b, "@abstract")
	require.Equal(t, uint32(2+len("@abstract")), n)
	require.Equal(t, byte(0), b[2])
	require.Equal(t, "@abstract", sockaddr.GetUnix(b[:], n))

	long := make([]byte, unix.SizeofSockaddrUnix-2)
	for i := range long {
		long[i] = 'a'
	}
	require.Zero(t, sockaddr.PutUnix(&b, string(long)), "no room for the NUL")
	require.Equal(t, uint32(unix.SizeofSockaddrUnix), sockaddr.PutUnix(&b, "@"+string(long[1:])), "an abstract name fills sun_path")
	require.Zero(t, sockaddr.PutUnix(&b, ""))

	require.Equal(t, "", sockaddr.GetUnix(b[:], 2), "unnamed")
	require.Equal(t, "", sockaddr.GetUnix(b[:], 1), "short")
	require.Equal(t, "", sockaddr.GetUnix(b[:], 200), "longer than b")
	sockaddr.Put(&b, netip.MustParseAddrPort("127.0.0.1:1"))
	require.Equal(t, "", sockaddr.GetUnix(b[:], unix.SizeofSockaddrInet4), "another family")
}
