//go:build linux

package goio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/task"
)

// Each test here makes the same calls on the runtime's adapters and on
// net's (side by side) and compares what they do and answer.

// sockopt reads an int option of c (a *Conn or a *net.TCPConn).
func sockopt(t *testing.T, c net.Conn, level, opt int) int {
	t.Helper()
	sc, ok := c.(syscall.Conn)
	require.True(t, ok)
	rc, err := sc.SyscallConn()
	require.NoError(t, err)
	var v int
	var gerr error
	require.NoError(t, rc.Control(func(fd uintptr) { v, gerr = fdio.GetsockoptInt(int(fd), level, opt) }))
	require.NoError(t, gerr)
	return v
}

func linger(t *testing.T, c net.Conn) int {
	t.Helper()
	rc, err := c.(syscall.Conn).SyscallConn()
	require.NoError(t, err)
	var v int
	var gerr error
	require.NoError(t, rc.Control(func(fd uintptr) { v, gerr = fdio.GetLinger(int(fd)) }))
	require.NoError(t, gerr)
	return v
}

var tcpDefaults = []struct {
	name       string
	level, opt int
}{
	{"TCP_NODELAY", unix.IPPROTO_TCP, unix.TCP_NODELAY},
	{"SO_KEEPALIVE", unix.SOL_SOCKET, unix.SO_KEEPALIVE},
	{"TCP_KEEPIDLE", unix.IPPROTO_TCP, unix.TCP_KEEPIDLE},
	{"TCP_KEEPINTVL", unix.IPPROTO_TCP, unix.TCP_KEEPINTVL},
	{"TCP_KEEPCNT", unix.IPPROTO_TCP, unix.TCP_KEEPCNT},
}

// Accepted and dialed TCP conns have net's options: TCP_NODELAY on (Nagle
// and delayed ACKs would hold every pipelined round ~40 ms) and
// keep-alive 15 s / 15 s / 9.
func TestConnDefaultsLikeNet(t *testing.T) {
	rt := newRuntime(t, 1)
	nd, na := pairOf(t, netListen, netDial, "tcp")
	want := map[string]int{}
	for _, o := range tcpDefaults {
		want[o.name] = sockopt(t, nd, o.level, o.opt)
		require.Equal(t, want[o.name], sockopt(t, na, o.level, o.opt), "net's own sides agree on %s", o.name)
	}
	require.Equal(t, 1, want["TCP_NODELAY"])
	for _, p := range pairings(rt) {
		d, a := pairOf(t, p.listen, p.dial, "tcp")
		for _, o := range tcpDefaults {
			require.Equal(t, want[o.name], sockopt(t, d, o.level, o.opt), "%s: dialed %s", p.name, o.name)
			require.Equal(t, want[o.name], sockopt(t, a, o.level, o.opt), "%s: accepted %s", p.name, o.name)
		}
	}
}

// LocalAddr and RemoteAddr of both ends are what net reports: each end's
// local address is the other's remote one, an accepted conn reports its
// own address (not the wildcard the listener is bound to), Unix ends
// report the path and "@" for the unnamed dialer.
func TestConnAddrsLikeNet(t *testing.T) {
	rt := newRuntime(t, 1)
	type ends struct{ dl, dr, al, ar net.Addr }
	run := func(listen listenFunc, dial dialFunc, network, laddr string) ends {
		ln, err := listen(network, laddr)
		require.NoError(t, err)
		defer ln.Close()
		ac := make(chan net.Conn, 1)
		go func() {
			c, _ := ln.Accept()
			ac <- c
		}()
		target := ln.Addr().String()
		if network == "tcp" {
			target = "127.0.0.1:" + strings.TrimPrefix(target[strings.LastIndex(target, ":"):], ":")
		}
		d, err := dial(context.Background(), network, target)
		require.NoError(t, err)
		defer d.Close()
		a := <-ac
		require.NotNil(t, a)
		defer a.Close()
		return ends{d.LocalAddr(), d.RemoteAddr(), a.LocalAddr(), a.RemoteAddr()}
	}
	for _, laddr := range []string{"127.0.0.1:0", ":0"} {
		want := run(netListen, netDial, "tcp", laddr)
		for _, p := range pairings(rt) {
			got := run(p.listen, p.dial, "tcp", laddr)
			for _, e := range []struct {
				what      string
				got, want net.Addr
			}{{"dialed local", got.dl, want.dl}, {"dialed remote", got.dr, want.dr}, {"accepted local", got.al, want.al}, {"accepted remote", got.ar, want.ar}} {
				require.NotNil(t, e.got, "%s %s: %s", laddr, p.name, e.what)
				require.IsType(t, e.want, e.got, "%s %s: %s", laddr, p.name, e.what)
				require.Equal(t, e.want.Network(), e.got.Network())
				host, _, err := net.SplitHostPort(e.got.String())
				require.NoError(t, err)
				whost, _, _ := net.SplitHostPort(e.want.String())
				require.Equal(t, whost, host, "%s %s: %s", laddr, p.name, e.what)
			}
			require.Equal(t, got.dl.String(), got.ar.String(), "%s %s: dialed local = accepted remote", laddr, p.name)
			require.Equal(t, got.dr.String(), got.al.String(), "%s %s: dialed remote = accepted local", laddr, p.name)
		}
	}
	path := filepath.Join(t.TempDir(), "s")
	want := run(netListen, netDial, "unix", path)
	for _, p := range pairings(rt) {
		got := run(p.listen, p.dial, "unix", path)
		describe := func(e ends) string {
			s := ""
			for _, a := range []net.Addr{e.dl, e.dr, e.al, e.ar} {
				s += fmt.Sprintf("%T %s %s; ", a, a.Network(), a)
			}
			return s
		}
		require.Equal(t, describe(want), describe(got), p.name)
	}
}

// Each *net.TCPConn method does to the socket what net's does, and after
// Close each fails as net's does.
func TestTCPConnMethodsLikeNet(t *testing.T) {
	rt := newRuntime(t, 1)
	_, nc := pairOf(t, netListen, netDial, "tcp")
	_, rc := pairOf(t, rtListen(rt), netDial, "tcp")
	type tcpConn interface {
		net.Conn
		SetNoDelay(bool) error
		SetKeepAlive(bool) error
		SetKeepAlivePeriod(time.Duration) error
		SetKeepAliveConfig(net.KeepAliveConfig) error
		SetLinger(int) error
		SetReadBuffer(int) error
		SetWriteBuffer(int) error
		CloseRead() error
		CloseWrite() error
		SyscallConn() (syscall.RawConn, error)
		ReadFrom(io.Reader) (int64, error)
		WriteTo(io.Writer) (int64, error)
	}
	n, r := nc.(tcpConn), rc.(tcpConn)
	var _ tcpConn = (*Conn)(nil)
	steps := []struct {
		name string
		call func(c tcpConn) error
	}{
		{"SetNoDelay(false)", func(c tcpConn) error { return c.SetNoDelay(false) }},
		{"SetNoDelay(true)", func(c tcpConn) error { return c.SetNoDelay(true) }},
		{"SetKeepAlive(false)", func(c tcpConn) error { return c.SetKeepAlive(false) }},
		{"SetKeepAlive(true)", func(c tcpConn) error { return c.SetKeepAlive(true) }},
		{"SetKeepAlivePeriod(1500ms)", func(c tcpConn) error { return c.SetKeepAlivePeriod(1500 * time.Millisecond) }},
		{"SetKeepAlivePeriod(-1)", func(c tcpConn) error { return c.SetKeepAlivePeriod(-1) }},
		{"SetKeepAlivePeriod(0)", func(c tcpConn) error { return c.SetKeepAlivePeriod(0) }},
		{"SetKeepAliveConfig", func(c tcpConn) error {
			return c.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: 3 * time.Second, Interval: 4 * time.Second, Count: 5})
		}},
		{"SetKeepAliveConfig(zero)", func(c tcpConn) error { return c.SetKeepAliveConfig(net.KeepAliveConfig{}) }},
		{"SetKeepAliveConfig(negative)", func(c tcpConn) error {
			return c.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: -1, Interval: -1, Count: -1})
		}},
		{"SetLinger(5)", func(c tcpConn) error { return c.SetLinger(5) }},
		{"SetLinger(0)", func(c tcpConn) error { return c.SetLinger(0) }},
		{"SetLinger(-1)", func(c tcpConn) error { return c.SetLinger(-1) }},
		{"SetReadBuffer", func(c tcpConn) error { return c.SetReadBuffer(96 << 10) }},
		{"SetWriteBuffer", func(c tcpConn) error { return c.SetWriteBuffer(80 << 10) }},
	}
	state := func(c tcpConn) string {
		s := ""
		for _, o := range tcpDefaults {
			s += fmt.Sprintf("%s=%d ", o.name, sockopt(t, c, o.level, o.opt))
		}
		return s + fmt.Sprintf("SO_LINGER=%d SO_RCVBUF=%d SO_SNDBUF=%d", linger(t, c),
			sockopt(t, c, unix.SOL_SOCKET, unix.SO_RCVBUF), sockopt(t, c, unix.SOL_SOCKET, unix.SO_SNDBUF))
	}
	for _, s := range steps {
		require.NoError(t, s.call(n), s.name)
		require.NoError(t, s.call(r), s.name)
		require.Equal(t, state(n), state(r), "after %s", s.name)
	}

	// Closed: the same errors.
	require.NoError(t, n.Close())
	require.NoError(t, r.Close())
	closedSteps := append(steps,
		struct {
			name string
			call func(c tcpConn) error
		}{"CloseRead", func(c tcpConn) error { return c.CloseRead() }},
		struct {
			name string
			call func(c tcpConn) error
		}{"CloseWrite", func(c tcpConn) error { return c.CloseWrite() }},
		struct {
			name string
			call func(c tcpConn) error
		}{"Close", func(c tcpConn) error { return c.Close() }},
		struct {
			name string
			call func(c tcpConn) error
		}{"SetDeadline", func(c tcpConn) error { return c.SetDeadline(time.Now()) }},
		struct {
			name string
			call func(c tcpConn) error
		}{"SyscallConn.Control", func(c tcpConn) error {
			rc, err := c.SyscallConn()
			if err != nil {
				return err
			}
			return rc.Control(func(uintptr) {})
		}},
		struct {
			name string
			call func(c tcpConn) error
		}{"Read", func(c tcpConn) error { _, err := c.Read(make([]byte, 1)); return err }},
		struct {
			name string
			call func(c tcpConn) error
		}{"Write", func(c tcpConn) error { _, err := c.Write([]byte("x")); return err }},
		struct {
			name string
			call func(c tcpConn) error
		}{"ReadFrom", func(c tcpConn) error { _, err := c.ReadFrom(strings.NewReader("x")); return err }},
	)
	for _, s := range closedSteps {
		nerr, rerr := s.call(n), s.call(r)
		if nerr == nil {
			require.NoError(t, rerr, s.name) // nothing to do: net does not look at the fd
			continue
		}
		require.Error(t, rerr, s.name)
		var nop, rop *net.OpError
		require.ErrorAs(t, nerr, &nop, s.name)
		require.ErrorAs(t, rerr, &rop, s.name)
		require.Equal(t, nop.Op, rop.Op, s.name)
		require.Equal(t, errors.Is(nerr, net.ErrClosed), errors.Is(rerr, net.ErrClosed), "%s: %v vs %v", s.name, nerr, rerr)
	}
}

// Arguments net would pass to the kernel unchecked and that cannot be
// right are refused with an *task.ArgError naming them, inside net's
// *net.OpError.
func TestTCPConnBadArguments(t *testing.T) {
	_, c := pairOf(t, rtListen(newRuntime(t, 1)), netDial, "tcp")
	rc := c.(*Conn)
	for _, tc := range []struct {
		arg string
		err error
	}{
		{"sec", rc.SetLinger(math.MaxInt32 + 1)},
		{"bytes", rc.SetReadBuffer(-1)},
		{"bytes", rc.SetWriteBuffer(math.MaxInt32 + 1)},
		{"d", rc.SetKeepAlivePeriod(math.MaxInt64)},
		{"config.Idle", rc.SetKeepAliveConfig(net.KeepAliveConfig{Idle: math.MaxInt64})},
		{"config.Count", rc.SetKeepAliveConfig(net.KeepAliveConfig{Count: math.MaxInt32 + 1})},
	} {
		var op *net.OpError
		require.ErrorAs(t, tc.err, &op)
		require.Equal(t, "set", op.Op)
		var ae *task.ArgError
		require.ErrorAs(t, tc.err, &ae)
		require.Equal(t, tc.arg, ae.Arg)
		require.ErrorIs(t, tc.err, unix.EINVAL)
	}
	// A TCP option on a Unix socket: the kernel's answer, as it would be
	// for a raw setsockopt.
	_, uc := pairOf(t, rtListen(newRuntime(t, 1)), netDial, "unix")
	require.ErrorIs(t, uc.(*Conn).SetNoDelay(true), unix.EOPNOTSUPP)
}

// CloseWrite sends EOF to the peer while the conn still reads; CloseRead
// makes the conn's own reads return EOF; as net's.
func TestConnHalfCloseLikeNet(t *testing.T) {
	rt := newRuntime(t, 1)
	for _, p := range append(pairings(rt), struct {
		name   string
		listen listenFunc
		dial   dialFunc
	}{"net-net", netListen, netDial}) {
		for _, network := range []string{"tcp", "unix"} {
			d, a := pairOf(t, p.listen, p.dial, network)
			require.NoError(t, d.(interface{ CloseWrite() error }).CloseWrite(), p.name)
			b, err := io.ReadAll(a)
			require.NoError(t, err)
			require.Empty(t, b)
			_, err = a.Write([]byte("still open"))
			require.NoError(t, err, p.name)
			got := make([]byte, 10)
			_, err = io.ReadFull(d, got)
			require.NoError(t, err, p.name)
			require.Equal(t, "still open", string(got))
			require.NoError(t, a.(interface{ CloseRead() error }).CloseRead(), p.name)
			n, err := a.Read(got)
			require.Zero(t, n)
			require.ErrorIs(t, err, io.EOF, "%s %s: a read after CloseRead", p.name, network)
		}
	}
}

// Listen answers what net.Listen answers, for every network and the usual
// mistakes; a Unix socket's path goes away with Close.
func TestListenLikeNet(t *testing.T) {
	rt := newRuntime(t, 1)
	dir := t.TempDir()
	cases := []struct{ network, addr string }{
		{"tcp", "127.0.0.1:0"}, {"tcp4", "127.0.0.1:0"}, {"tcp6", "[::1]:0"}, {"tcp", ":0"},
		{"tcp4", "[::1]:0"}, {"tcp6", "127.0.0.1:0"}, {"tcp", "127.0.0.1"}, {"tcp", "127.0.0.1:99999"},
		{"tcp", "no-such-host.invalid:0"}, {"unix", filepath.Join(dir, "a")}, {"udp", "127.0.0.1:0"},
		{"bogus", "x"}, {"unix", filepath.Join(dir, "missing", "a")},
	}
	for _, tc := range cases {
		nl, nerr := net.Listen(tc.network, tc.addr)
		if nerr == nil {
			if tc.network == "unix" {
				nl.(*net.UnixListener).SetUnlinkOnClose(true)
			}
			nl.Close()
		}
		rl, rerr := On(rt).Listen(tc.network, tc.addr)
		if nerr != nil {
			require.Error(t, rerr, "%s %s", tc.network, tc.addr)
			if strings.Contains(tc.addr, ".invalid") {
				// A DNS error names the resolver's socket, a new one each time.
				var nde, rde *net.DNSError
				require.ErrorAs(t, nerr, &nde)
				require.ErrorAs(t, rerr, &rde)
				require.Equal(t, nde.Name, rde.Name)
				continue
			}
			require.Equal(t, nerr.Error(), rerr.Error())
			continue
		}
		require.NoError(t, rerr, "%s %s", tc.network, tc.addr)
		require.IsType(t, nl.Addr(), rl.Addr())
		require.Equal(t, nl.Addr().Network(), rl.Addr().Network())
		if tc.network == "unix" {
			require.Equal(t, tc.addr, rl.Addr().String())
			_, err := On(rt).Listen("unix", tc.addr)
			_, nerr := net.Listen("unix", tc.addr)
			require.Equal(t, nerr.Error(), err.Error(), "the path is taken")
			require.NoError(t, rl.Close())
			_, err = os.Stat(tc.addr)
			require.ErrorIs(t, err, os.ErrNotExist, "Close removes the socket's path")
		} else {
			require.NoError(t, rl.Close())
		}
		err := rl.Close()
		var op *net.OpError
		require.ErrorAs(t, err, &op)
		require.ErrorIs(t, err, net.ErrClosed)
	}
	_, err := On(rt).Listen("unixpacket", filepath.Join(dir, "p"))
	var ae *task.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "network", ae.Arg)
}

// An Accept in progress ends with net.ErrClosed at Close, and with a
// timeout at the listener's deadline, as net's.
func TestListenerCloseAndDeadline(t *testing.T) {
	rt := newRuntime(t, 1)
	for _, listen := range []listenFunc{netListen, rtListen(rt)} {
		ln, err := listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		dl := ln.(interface{ SetDeadline(time.Time) error })
		require.NoError(t, dl.SetDeadline(time.Now().Add(20*time.Millisecond)))
		_, err = ln.Accept()
		require.ErrorIs(t, err, os.ErrDeadlineExceeded)
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		require.True(t, ne.Timeout())
		require.NoError(t, dl.SetDeadline(time.Time{}))
		errc := make(chan error, 1)
		go func() { _, err := ln.Accept(); errc <- err }()
		time.Sleep(10 * time.Millisecond)
		require.NoError(t, ln.Close())
		err = <-errc
		require.ErrorIs(t, err, net.ErrClosed)
		var op *net.OpError
		require.ErrorAs(t, err, &op)
		require.Equal(t, "accept", op.Op)
	}
}

// Dial answers what net's Dialer answers: the networks, refused and
// malformed addresses, Unix paths, an ended context.
func TestDialLikeNet(t *testing.T) {
	rt := newRuntime(t, 1)
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer tl.Close()
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	refused := closed.Addr().String()
	closed.Close()
	path := filepath.Join(t.TempDir(), "s")
	ul, err := net.Listen("unix", path)
	require.NoError(t, err)
	defer ul.Close()
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := tl.Addr().(*net.TCPAddr).Port
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	bg := context.Background()
	cases := []struct {
		ctx              context.Context
		network, address string
	}{
		{bg, "tcp", tl.Addr().String()}, {bg, "tcp4", tl.Addr().String()}, {bg, "tcp", fmt.Sprintf(":%d", port)},
		{bg, "tcp6", tl.Addr().String()}, {bg, "tcp", refused}, {bg, "tcp", "127.0.0.1"},
		{bg, "tcp", "127.0.0.1:99999"}, {bg, "bogus", "x"}, {bg, "unix", path},
		{bg, "unix", filepath.Join(t.TempDir(), "none")}, {bg, "tcp", "no-such-host.invalid:80"},
		{cancelled, "tcp", tl.Addr().String()}, {expired, "tcp", tl.Addr().String()},
		{cancelled, "unix", path},
	}
	var d net.Dialer
	for _, tc := range cases {
		nc, nerr := d.DialContext(tc.ctx, tc.network, tc.address)
		rc, rerr := On(rt).Dial(tc.ctx, tc.network, tc.address)
		what := fmt.Sprintf("%s %s", tc.network, tc.address)
		if nerr != nil {
			require.Error(t, rerr, what)
			if !strings.Contains(tc.address, "invalid") { // DNS errors name the server, which may vary
				require.Equal(t, nerr.Error(), rerr.Error(), what)
			}
			var nop, rop *net.OpError
			require.ErrorAs(t, nerr, &nop)
			require.ErrorAs(t, rerr, &rop)
			require.Equal(t, nop.Op, rop.Op)
			for _, target := range []error{context.Canceled, context.DeadlineExceeded, unix.ECONNREFUSED, unix.ENOENT} {
				require.Equal(t, errors.Is(nerr, target), errors.Is(rerr, target), "%s: errors.Is %v", what, target)
			}
			var nne, rne net.Error
			if errors.As(nerr, &nne) {
				require.ErrorAs(t, rerr, &rne)
				require.Equal(t, nne.Timeout(), rne.Timeout(), what)
			}
			continue
		}
		require.NoError(t, rerr, what)
		require.Equal(t, nc.RemoteAddr().String(), rc.RemoteAddr().String(), what)
		require.IsType(t, nc.LocalAddr(), rc.LocalAddr(), what)
		nc.Close()
		rc.Close()
	}
	_, err = On(rt).Dial(bg, "udp", tl.Addr().String())
	var ae *task.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "network", ae.Arg)
	//lint:ignore SA1012 a nil context is the bad argument under test
	_, err = On(rt).Dial(nil, "tcp", tl.Addr().String()) //nolint:staticcheck
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "ctx", ae.Arg)
}

// Dial tries every address a name resolves to, in turn, as net does: the
// first refuses, the second connects; when all fail, the first error is
// the answer.
func TestDialTriesEveryAddress(t *testing.T) {
	rt := newRuntime(t, 1)
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	saved := lookupNetIP
	defer func() { lookupNetIP = saved }()
	var asked []string
	lookupNetIP = func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		asked = append(asked, network+" "+host)
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.2")}, nil
	}
	c, err := On(rt).Dial(context.Background(), "tcp", fmt.Sprintf("two.example:%d", port))
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("127.0.0.2:%d", port), c.RemoteAddr().String())
	require.NoError(t, c.Close())
	require.Equal(t, []string{"ip two.example"}, asked)

	ln.Close()
	_, err = On(rt).Dial(context.Background(), "tcp4", fmt.Sprintf("two.example:%d", port))
	require.ErrorIs(t, err, unix.ECONNREFUSED)
	require.Contains(t, err.Error(), fmt.Sprintf("127.0.0.1:%d", port), "the first address's error")
	require.Equal(t, "ip4 two.example", asked[1])
}

// fullListener is a listener whose accept queue is full, so that its
// SYNs go unanswered and a connect to it waits; closed with the test.
func fullListener(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	rc, err := ln.(*net.TCPListener).SyscallConn()
	require.NoError(t, err)
	require.NoError(t, rc.Control(func(fd uintptr) { err = syscall.Listen(int(fd), 0) }))
	require.NoError(t, err)
	// Fill the queue: connections that complete until one does not.
	for i := 0; i < 8; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", ln.Addr().String())
		cancel()
		if err != nil {
			break
		}
		t.Cleanup(func() { c.Close() })
	}
	return ln
}

// A connect that cannot complete (the listener's accept queue is full,
// so its SYNs go unanswered) ends at the context's deadline with net's
// "i/o timeout", and a cancel ends it at once.
func TestDialContextDeadline(t *testing.T) {
	rt := newRuntime(t, 1)
	ln := fullListener(t)
	for i, dial := range []dialFunc{netDial, On(rt).Dial} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, err := dial(ctx, "tcp", ln.Addr().String())
		cancel()
		if i == 1 {
			// net's may be its poller's deadline error, which is not
			// context.DeadlineExceeded, when that fires first.
			require.ErrorIs(t, err, context.DeadlineExceeded)
		}
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		require.True(t, ne.Timeout())
		require.Equal(t, fmt.Sprintf("dial tcp %s: i/o timeout", ln.Addr()), err.Error())

		ctx, cancel = context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { _, err := dial(ctx, "tcp", ln.Addr().String()); errc <- err }()
		time.Sleep(20 * time.Millisecond)
		cancel()
		err = <-errc
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, fmt.Sprintf("dial tcp %s: operation was canceled", ln.Addr()), err.Error())
	}
}

// A deadline set while an Accept waits ends that Accept, as net's does;
// Runtime.Close ends an Accept in flight with net.ErrClosed. (With
// WithRingConnWaits a deadline holds for Accepts started after it.)
func TestListenerInFlightLikeNet(t *testing.T) {
	rt := newRuntime(t, 1)
	listens := []listenFunc{netListen, rtListen(rt)}
	if os.Getenv(backendEnv) == ringConnsBackend {
		listens = listens[:1] // ring waits: an Accept's deadline is taken when it starts
	}
	for _, listen := range listens {
		ln, err := listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		errc := make(chan error, 1)
		go func() { _, err := ln.Accept(); errc <- err }()
		time.Sleep(10 * time.Millisecond)
		require.NoError(t, ln.(interface{ SetDeadline(time.Time) error }).SetDeadline(time.Now().Add(10*time.Millisecond)))
		require.ErrorIs(t, <-errc, os.ErrDeadlineExceeded)
		require.NoError(t, ln.Close())
	}
	rt2, err := task.NewRuntime(1, backendOpts()...)
	require.NoError(t, err)
	ln, err := On(rt2).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	errc := make(chan error, 1)
	go func() { _, err := ln.Accept(); errc <- err }()
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, rt2.Close())
	require.ErrorIs(t, <-errc, net.ErrClosed)
}
