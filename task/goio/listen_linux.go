//go:build linux

package goio

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdguard"
	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
)

// Listener is a net.Listener whose Accept runs on the runtime; net/http
// serves on it unchanged. Accept is an accept4 from the caller's goroutine
// that waits in Go's netpoller, as net's does (with task.WithRingConnWaits:
// an ACCEPT awaited by a task of an executor). Its connections are *Conn,
// with net's defaults: TCP_NODELAY on and keep-alive every 15 s (set on
// the listening socket, which accepted sockets inherit).
type Listener struct {
	env     *Env
	file    *os.File // owns the listening fd
	fd      int
	network string
	addr    net.Addr
	local   netip.AddrPort // the TCP address, when it is a specific one
	unlink  string         // the Unix socket path Close removes
	dl      atomic.Int64   // Accept deadline (UnixNano); 0: none
	ctx     context.Context
	cancel  context.CancelFunc
	once    sync.Once
	// g counts the Accepts through the ring (WithRingConnWaits) in flight:
	// Close waits for them before the fd goes, so that an ACCEPT queued
	// but not yet submitted never reaches a number that a later socket
	// has taken.
	g fdguard.Guard

	// Accept from the caller's goroutine, waiting in Go's netpoller (unless
	// WithRingConnWaits): a non-blocking duplicate of the fd, registered
	// with an executor so that Close and the runtime's Close end the waits.
	np    *npFile
	npReg *closers
}

// Listen listens on a stream address as net.Listen does: network is tcp,
// tcp4, tcp6 or unix (net.Listen makes the socket; every accept, read and
// write then runs on the runtime). A Unix socket path is removed by
// Close, as net does.
func (e *Env) Listen(network, address string) (*Listener, error) {
	if e == nil {
		return nil, nilReceiver("Env.Listen")
	}
	switch network {
	case "tcp", "tcp4", "tcp6", "unix":
	case "unixpacket":
		return nil, &net.OpError{Op: "listen", Net: network, Err: argError("Env.Listen", "network", "= unixpacket is not supported (tcp, tcp4, tcp6 or unix)")}
	}
	if e.closing() {
		return nil, &net.OpError{Op: "listen", Net: network, Err: net.ErrClosed}
	}
	nl, err := net.Listen(network, address) // net's errors for unknown networks and bad addresses
	if err != nil {
		return nil, err
	}
	var f *os.File
	l := &Listener{env: e, network: network, addr: nl.Addr()}
	switch nl := nl.(type) {
	case *net.TCPListener:
		f, err = nl.File() // a dup of the socket, in blocking mode
	case *net.UnixListener:
		nl.SetUnlinkOnClose(false) // the path is ours to remove
		f, err = nl.File()
		if name := l.addr.String(); name != "" && name[0] != '@' {
			l.unlink = name
		}
	default:
		err = argError("Env.Listen", "network", "= "+network+" is not a stream network")
	}
	nl.Close()
	if err != nil {
		if l.unlink != "" {
			_ = os.Remove(l.unlink)
		}
		return nil, &net.OpError{Op: "listen", Net: network, Addr: l.addr, Err: err}
	}
	l.file, l.fd = f, int(f.Fd())
	if isTCP(network) {
		_ = setTCPDefaults(l.fd)
		if ta, ok := l.addr.(*net.TCPAddr); ok && !ta.IP.IsUnspecified() {
			l.local = ta.AddrPort()
		}
	}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	if ex, reg := e.pick(); !ex.RingConnWaits() {
		np, err := netpollFile(l.fd, "goio-listener")
		if err == nil && !reg.add(np.f) {
			_ = np.f.Close()
			err = net.ErrClosed // the runtime is closing
		}
		if err != nil {
			_ = l.close() // no Accept has begun: nothing to wait for
			return nil, &net.OpError{Op: "listen", Net: network, Addr: l.addr, Err: err}
		}
		l.np, l.npReg = np, reg
	}
	return l, nil
}

// acceptNetpoll is Accept from the caller's goroutine: accept4 on the
// listening fd, waiting for readiness in the netpoller under the deadline.
// flags are accept4's (SOCK_CLOEXEC is added).
func (l *Listener) acceptNetpoll(flags int) (int, netip.AddrPort, error) {
	var nfd int
	var peer netip.AddrPort
	var scope uint32
	var aerr error
	err := l.np.rc.Read(func(uintptr) bool {
		nfd, peer, scope, aerr = fdio.Accept4(l.fd, flags|unix.SOCK_CLOEXEC)
		switch aerr {
		case unix.EAGAIN, unix.EINTR, unix.ECONNABORTED:
			return false // wait (again): another acceptor took it, or the peer left
		}
		return true
	})
	if err := netpollErr(err); err != nil {
		return -1, netip.AddrPort{}, err
	}
	if aerr != nil {
		return -1, netip.AddrPort{}, os.NewSyscallError("accept4", aerr)
	}
	return nfd, sockaddr.Zoned(peer, scope), nil
}

// setTCPDefaults turns on what net turns on for every TCP connection:
// TCP_NODELAY, and keep-alive probes after 15 s idle, every 15 s, 9 of
// them (net.KeepAliveConfig's defaults).
func setTCPDefaults(fd int) error {
	return errors.Join(
		sysErr("setsockopt", fdio.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)),
		setKeepAliveConfig(fd, net.KeepAliveConfig{Enable: true}))
}

// Accept waits for a connection; Close unblocks it with net.ErrClosed, a
// deadline (SetDeadline) with os.ErrDeadlineExceeded.
func (l *Listener) Accept() (net.Conn, error) {
	if l == nil {
		return nil, nilReceiver("Listener.Accept")
	}
	ex := l.env.rt.NextExecutor()
	type acc struct {
		fd   int
		peer netip.AddrPort
	}
	var a acc
	var err error
	nonblock := false // the accepted fd is non-blocking
	if l.np != nil {
		if l.ctx.Err() != nil {
			return nil, l.opErr(net.ErrClosed)
		}
		flags := 0
		if nonblock = !ex.RingConnWaits(); nonblock {
			// The conn will wait in the netpoller, which wants it
			// non-blocking: set now, not with two fcntl(2) calls later.
			flags = unix.SOCK_NONBLOCK
		}
		a.fd, a.peer, err = l.acceptNetpoll(flags)
		if err != nil {
			return nil, l.opErr(err)
		}
	} else {
		if !l.g.Acquire() {
			return nil, l.opErr(net.ErrClosed)
		}
		ctx := l.ctx
		if dl := l.dl.Load(); dl != 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, time.Unix(0, dl))
			defer cancel()
		}
		// call returns after the task has ended (its ACCEPT answered or
		// cancelled): only then may Close close the fd.
		a, err = call(ctx, l.env.rt, ex, func(t *task.T) (acc, error) {
			fd, peer, err := t.Accept(l.fd, 0)
			return acc{fd, peer}, err
		})
		l.g.Release()
		if err != nil {
			switch {
			case l.ctx.Err() != nil || errors.Is(err, task.ErrClosed): // the listener or the runtime closed
				err = net.ErrClosed
			case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
				err = os.ErrDeadlineExceeded
			}
			return nil, l.opErr(err)
		}
	}
	var laddr, raddr net.Addr
	if l.network == "unix" {
		laddr = l.addr
		if raddr, err = peerAddr(a.fd, "unix"); err != nil {
			_ = sys.Close(a.fd)
			return nil, l.opErr(err)
		}
	} else {
		raddr = inetAddr(l.network, a.peer)
		if l.local.IsValid() {
			laddr = inetAddr(l.network, l.local)
		} else if laddr, err = localAddr(a.fd, l.network); err != nil {
			_ = sys.Close(a.fd)
			return nil, l.opErr(err)
		}
	}
	return newConn(l.env, ex, a.fd, l.network, laddr, raddr, nonblock), nil
}

func (l *Listener) opErr(err error) error {
	return &net.OpError{Op: "accept", Net: l.network, Addr: l.addr, Err: err}
}

// SetDeadline sets the deadline of Accept (the zero time: none): an Accept
// waiting in the netpoller sees the new one, as net.TCPListener's does;
// with WithRingConnWaits it holds for Accept calls that start from now on.
func (l *Listener) SetDeadline(t time.Time) error {
	if l == nil {
		return nilReceiver("Listener.SetDeadline")
	}
	if l.ctx.Err() != nil {
		return &net.OpError{Op: "set", Net: l.network, Addr: l.addr, Err: net.ErrClosed}
	}
	var dl int64
	if !t.IsZero() {
		if dl = t.UnixNano(); dl == 0 {
			dl = 1
		}
	}
	l.dl.Store(dl)
	if l.np != nil {
		_ = l.np.f.SetReadDeadline(t) // an Accept in flight sees it too, as net's does
	}
	return nil
}

// Close stops accepting; a Unix socket's path is removed. With
// task.WithRingConnWaits it ends the Accepts in flight and waits for their
// tasks before it closes the fd, so a later socket that takes the fd's
// number never gets their ACCEPT; such a listener's Close from a task of
// the runtime returns task.ErrWouldDeadlock and leaves it open (the wait
// would hold a thread those tasks may need).
func (l *Listener) Close() error {
	if l == nil {
		return nilReceiver("Listener.Close")
	}
	if l.np == nil && l.env.rt.OnThread() {
		return &net.OpError{Op: "close", Net: l.network, Addr: l.addr, Err: task.ErrWouldDeadlock}
	}
	return l.close()
}

// close is Close, once.
func (l *Listener) close() error {
	err := error(net.ErrClosed)
	l.once.Do(func() {
		l.cancel() // ends the Accepts in flight, and fails those that start now
		if l.np != nil {
			l.npReg.drop(l.np.f)
			_ = l.np.f.Close() // ends the Accepts waiting in the netpoller
		}
		// Waits for the ring's Accepts (cancelled above): an ACCEPT
		// still queued in the ring must not reach the fd's number after
		// close(2), when another socket may have it.
		l.g.Close()
		err = l.file.Close()
		if l.unlink != "" {
			_ = os.Remove(l.unlink)
		}
	})
	if err != nil {
		return &net.OpError{Op: "close", Net: l.network, Addr: l.addr, Err: err}
	}
	return nil
}

// Fd returns the listening socket's fd, for tasks that accept on it
// themselves (t.Accept), beside Accept or instead of it. It stays the
// listener's: Close closes it, and Accepts in flight on it then fail.
func (l *Listener) Fd() int {
	if l == nil {
		return -1
	}
	return l.fd
}

// Addr returns the listening address (*net.TCPAddr or *net.UnixAddr).
func (l *Listener) Addr() net.Addr {
	if l == nil {
		return nil
	}
	return l.addr
}

// Dial connects to address as net.Dialer.DialContext does, for network
// tcp, tcp4, tcp6 or unix: a TCP connect waits in Go's netpoller, as
// net's does (with task.WithRingConnWaits: an io_uring CONNECT). A host name
// is resolved with net.DefaultResolver, and every address is tried in
// turn (the resolver's order, the first one's family first) until one
// connects; ctx's deadline bounds the whole dial and is shared among the
// addresses as net shares it. TCP connections get net's defaults
// (TCP_NODELAY, keep-alive every 15 s). Errors are *net.OpError as net
// returns them.
func (e *Env) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if e == nil {
		return nil, nilReceiver("Env.Dial")
	}
	if ctx == nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: argError("Env.Dial", "ctx", "is nil")}
	}
	switch network {
	case "tcp", "tcp4", "tcp6":
		return e.dialTCP(ctx, network, address)
	case "unix":
		return e.dialUnix(ctx, network, address)
	case "udp", "udp4", "udp6", "ip", "ip4", "ip6", "unixgram", "unixpacket":
		return nil, &net.OpError{Op: "dial", Net: network, Err: argError("Env.Dial", "network", "= "+network+" is not supported (tcp, tcp4, tcp6 or unix)")}
	}
	return nil, &net.OpError{Op: "dial", Net: network, Err: net.UnknownNetworkError(network)}
}

// dialError is net's error for a dial ended by its context: "i/o timeout"
// (errors.Is context.DeadlineExceeded, a net.Error whose Timeout is true)
// or "operation was canceled" (errors.Is context.Canceled).
type dialError struct{ cause error }

func (e *dialError) Error() string {
	if e.cause == context.DeadlineExceeded {
		return "i/o timeout"
	}
	return "operation was canceled"
}
func (e *dialError) Timeout() bool        { return e.cause == context.DeadlineExceeded }
func (e *dialError) Temporary() bool      { return e.Timeout() }
func (e *dialError) Is(target error) bool { return target == e.cause }

// mapCtxErr maps a context's error as net does; others are unchanged.
func mapCtxErr(err error) error {
	if err == context.DeadlineExceeded || err == context.Canceled {
		return &dialError{err}
	}
	return err
}

func (e *Env) dialTCP(ctx context.Context, network, address string) (net.Conn, error) {
	addrs, err := resolveTCP(ctx, network, address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	var first error
	for i, ap := range addrs {
		raddr := net.TCPAddrFromAddrPort(ap)
		if err := ctx.Err(); err != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: mapCtxErr(err)}
		}
		dctx := ctx
		if dl, ok := ctx.Deadline(); ok {
			part, err := partialDeadline(time.Now(), dl, len(addrs)-i)
			if err != nil {
				if first == nil {
					first = &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: err}
				}
				break
			}
			if part.Before(dl) {
				var cancel context.CancelFunc
				dctx, cancel = context.WithDeadline(ctx, part)
				defer cancel()
			}
		}
		c, err := e.dialOne(dctx, network, ap)
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: err}
		}
	}
	return nil, first
}

// partialDeadline is net's: the share of the time left to deadline that
// one of addrsRemaining addresses gets (at least 2 s when there is that
// much).
func partialDeadline(now, deadline time.Time, addrsRemaining int) (time.Time, error) {
	left := deadline.Sub(now)
	if left <= 0 {
		return time.Time{}, mapCtxErr(context.DeadlineExceeded)
	}
	timeout := left / time.Duration(addrsRemaining)
	const saneMinimum = 2 * time.Second
	if timeout < saneMinimum {
		timeout = min(left, saneMinimum)
	}
	return now.Add(timeout), nil
}

// lookupNetIP resolves host names (a variable for the tests).
var lookupNetIP = net.DefaultResolver.LookupNetIP

// resolveTCP returns the addresses to try for address, the first one's
// family first (net's primaries, then its fallbacks). An empty or
// unspecified host is the local system (the loopback address), as in net.
func resolveTCP(ctx context.Context, network, address string) ([]netip.AddrPort, error) {
	host, service, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := net.DefaultResolver.LookupPort(ctx, network, service)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, perr := netip.ParseAddr(host); perr == nil {
		ips = []netip.Addr{ip}
	} else if host == "" {
		ips = []netip.Addr{{}}
	} else {
		afnet := "ip"
		switch network {
		case "tcp4":
			afnet = "ip4"
		case "tcp6":
			afnet = "ip6"
		}
		if ips, err = lookupNetIP(ctx, afnet, host); err != nil {
			return nil, err
		}
	}
	var primaries, fallbacks []netip.AddrPort
	for _, ip := range ips {
		if !ip.IsValid() || ip.IsUnspecified() {
			// net dials the local system for these.
			if network == "tcp6" || (ip.Is6() && !ip.Is4In6()) {
				ip = netip.IPv6Loopback()
			} else {
				ip = netip.AddrFrom4([4]byte{127, 0, 0, 1})
			}
		}
		ip4 := ip.Is4() || ip.Is4In6()
		if (network == "tcp4" && !ip4) || (network == "tcp6" && ip4) {
			continue
		}
		ap := netip.AddrPortFrom(ip, uint16(port))
		if len(primaries) == 0 || primaries[0].Addr().Unmap().Is4() == ip4 {
			primaries = append(primaries, ap)
		} else {
			fallbacks = append(fallbacks, ap)
		}
	}
	if len(primaries) == 0 {
		return nil, &net.AddrError{Err: "no suitable address found", Addr: host}
	}
	return append(primaries, fallbacks...), nil
}

// dialOne connects a new TCP socket to ap: from the caller's goroutine,
// waiting in Go's netpoller as net does (connectNetpoll), or through the
// ring (CONNECT, 5.5) on executors WithRingConnWaits. Its errors are
// net's: an *os.SyscallError for the kernel's answer, the mapped context
// error when ctx ended it.
func (e *Env) dialOne(ctx context.Context, network string, ap netip.AddrPort) (*Conn, error) {
	for try := 0; ; try++ {
		if ap.Addr().Is4In6() {
			ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		}
		dom := unix.AF_INET6
		if ap.Addr().Is4() {
			dom = unix.AF_INET
		}
		ex := e.rt.NextExecutor()
		var c *Conn
		var err error
		if ex.RingConnWaits() {
			c, err = e.connectRing(ctx, ex, network, dom, ap)
		} else {
			c, err = e.connectNetpoll(ctx, ex, network, dom, ap)
		}
		if err != nil {
			return nil, err
		}
		// A connection to itself (no listener on a port the kernel also
		// picked as the source): net closes it and tries again, twice.
		if la, ok := c.laddr.(*net.TCPAddr); ok && try < 2 && la.AddrPort() == ap {
			_ = c.Close()
			continue
		}
		return c, nil
	}
}

// connectRing connects a new TCP socket through the ring (CONNECT).
func (e *Env) connectRing(ctx context.Context, ex *task.Executor, network string, dom int, ap netip.AddrPort) (*Conn, error) {
	fd, err := fdio.Socket(dom, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, sysErr("socket", err)
	}
	_ = setTCPDefaults(fd)
	_, err = call(ctx, e.rt, ex, func(t *task.T) (struct{}, error) { return struct{}{}, t.Connect(fd, ap) })
	if err != nil {
		_ = sys.Close(fd)
		return nil, connectErr(err)
	}
	laddr, err := localAddr(fd, network)
	if err != nil {
		_ = sys.Close(fd)
		return nil, err
	}
	return newConn(e, ex, fd, network, laddr, net.TCPAddrFromAddrPort(ap), false), nil
}

// connectErr is net's form of a failed connect: the context's error,
// net.ErrClosed when the runtime closed, or the errno as an
// *os.SyscallError.
func connectErr(err error) error {
	switch {
	case errors.Is(err, task.ErrClosed):
		return net.ErrClosed // the runtime closed under the dial, as its sockets say
	case errors.Is(err, context.DeadlineExceeded):
		// Also when the ring's LINK_TIMEOUT fired before ctx's own timer.
		return mapCtxErr(context.DeadlineExceeded)
	case errors.Is(err, context.Canceled):
		return mapCtxErr(context.Canceled)
	}
	var errno unix.Errno
	if errors.As(err, &errno) {
		return os.NewSyscallError("connect", errno)
	}
	return err
}

func (e *Env) dialUnix(ctx context.Context, network, address string) (net.Conn, error) {
	raddr := &net.UnixAddr{Name: address, Net: network}
	if err := ctx.Err(); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: mapCtxErr(err)}
	}
	// A Unix socket connects at once or fails (EAGAIN: the backlog is
	// full), as net's does; no ring round trip. A conn that will wait in
	// the netpoller is non-blocking from socket(2) on; one whose waits
	// are the ring's stays blocking.
	ex := e.rt.NextExecutor()
	nonblock := !ex.RingConnWaits()
	typ := unix.SOCK_STREAM
	if nonblock {
		typ |= unix.SOCK_NONBLOCK
	}
	fd, err := fdio.Socket(unix.AF_UNIX, typ, 0)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: sysErr("socket", err)}
	}
	connect := fdio.ConnectNow
	if nonblock {
		connect = fdio.Connect
	}
	if err := connect(fd, &unix.SockaddrUnix{Name: address}); err != nil {
		_ = sys.Close(fd)
		return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: sysErr("connect", err)}
	}
	laddr, err := localAddr(fd, network)
	if err != nil {
		_ = sys.Close(fd)
		return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: err}
	}
	return newConn(e, ex, fd, network, laddr, raddr, nonblock), nil
}
