//go:build linux

package goio

import (
	"math"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
)

// The *net.TCPConn method set of Conn. Each call is a setsockopt(2) or
// shutdown(2) on the calling goroutine (io_uring has no portable op for
// them before 6.7's SOCKET_URING_OP_SETSOCKOPT); the fd is held open
// under it. Errors are *net.OpError (Op "set" or "close") as net returns
// them; a bad argument is a *ArgError naming it inside the OpError
// (errors.Is EINVAL).

func boolint(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SetNoDelay turns Nagle's algorithm off (true, the default, as in net)
// or on (TCP_NODELAY).
func (c *Conn) SetNoDelay(noDelay bool) error {
	if c == nil {
		return nilReceiver("Conn.SetNoDelay")
	}
	return c.guarded("set", func(fd int) error {
		return sysErr("setsockopt", fdio.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, boolint(noDelay)))
	})
}

// SetKeepAlive turns keep-alive probes on or off (SO_KEEPALIVE).
func (c *Conn) SetKeepAlive(keepalive bool) error {
	if c == nil {
		return nilReceiver("Conn.SetKeepAlive")
	}
	return c.guarded("set", func(fd int) error {
		return sysErr("setsockopt", fdio.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, boolint(keepalive)))
	})
}

// SetKeepAlivePeriod sets the idle time before the first keep-alive probe
// (TCP_KEEPIDLE, rounded up to seconds; 0: net's default of 15 s; below
// 0: unchanged), as net.TCPConn's does.
func (c *Conn) SetKeepAlivePeriod(d time.Duration) error {
	if c == nil {
		return nilReceiver("Conn.SetKeepAlivePeriod")
	}
	if err := checkKeepAliveDuration("Conn.SetKeepAlivePeriod", "d", d); err != nil {
		return c.opErr("set", err)
	}
	if d < 0 {
		return nil // unchanged; net does not look at the fd either
	}
	return c.guarded("set", func(fd int) error { return setKeepAliveSecs(fd, unix.TCP_KEEPIDLE, d) })
}

// SetKeepAliveConfig sets keep-alive as net.TCPConn's does: Enable
// (SO_KEEPALIVE), Idle (TCP_KEEPIDLE), Interval (TCP_KEEPINTVL) and Count
// (TCP_KEEPCNT); a zero field is net's default (15 s, 15 s, 9), a negative
// one leaves the setting unchanged.
func (c *Conn) SetKeepAliveConfig(config net.KeepAliveConfig) error {
	if c == nil {
		return nilReceiver("Conn.SetKeepAliveConfig")
	}
	if err := firstError(checkKeepAliveDuration("Conn.SetKeepAliveConfig", "config.Idle", config.Idle),
		checkKeepAliveDuration("Conn.SetKeepAliveConfig", "config.Interval", config.Interval)); err != nil {
		return c.opErr("set", err)
	}
	if config.Count > math.MaxInt32 {
		return c.opErr("set", argError("Conn.SetKeepAliveConfig", "config.Count", "= "+strconv.Itoa(config.Count)+" is out of range"))
	}
	return c.guarded("set", func(fd int) error { return setKeepAliveConfig(fd, config) })
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkKeepAliveDuration refuses a duration whose seconds overflow the
// kernel's int.
func checkKeepAliveDuration(fn, arg string, d time.Duration) error {
	if d > math.MaxInt32*time.Second {
		return argError(fn, arg, "= "+d.String()+" is out of range")
	}
	return nil
}

func setKeepAliveConfig(fd int, config net.KeepAliveConfig) error {
	if err := sysErr("setsockopt", fdio.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, boolint(config.Enable))); err != nil {
		return err
	}
	if err := setKeepAliveSecs(fd, unix.TCP_KEEPIDLE, config.Idle); err != nil {
		return err
	}
	if err := setKeepAliveSecs(fd, unix.TCP_KEEPINTVL, config.Interval); err != nil {
		return err
	}
	switch n := config.Count; {
	case n == 0:
		n = 9
		fallthrough
	case n > 0:
		return sysErr("setsockopt", fdio.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPCNT, n))
	}
	return nil
}

// setKeepAliveSecs sets TCP_KEEPIDLE or TCP_KEEPINTVL to d rounded up to
// seconds (0: 15 s; below 0: unchanged).
func setKeepAliveSecs(fd, opt int, d time.Duration) error {
	if d < 0 {
		return nil
	}
	if d == 0 {
		d = 15 * time.Second
	}
	secs := int((d + time.Second - 1) / time.Second)
	return sysErr("setsockopt", fdio.SetsockoptInt(fd, unix.IPPROTO_TCP, opt, secs))
}

// SetLinger sets what Close does with unsent data (SO_LINGER): sec < 0
// (the default) sends it in the background; 0 discards it and resets the
// connection; sec > 0 makes Close wait up to sec seconds for it.
func (c *Conn) SetLinger(sec int) error {
	if c == nil {
		return nilReceiver("Conn.SetLinger")
	}
	if sec > math.MaxInt32 {
		return c.opErr("set", argError("Conn.SetLinger", "sec", "= "+strconv.Itoa(sec)+" is out of range"))
	}
	return c.guarded("set", func(fd int) error { return sysErr("setsockopt", fdio.SetLinger(fd, sec)) })
}

// SetReadBuffer sets the socket's receive buffer size (SO_RCVBUF; the
// kernel doubles it and caps it at net.core.rmem_max).
func (c *Conn) SetReadBuffer(bytes int) error {
	if c == nil {
		return nilReceiver("Conn.SetReadBuffer")
	}
	return c.sock.setBuffer("Conn.SetReadBuffer", unix.SO_RCVBUF, bytes)
}

// SetWriteBuffer sets the socket's send buffer size (SO_SNDBUF).
func (c *Conn) SetWriteBuffer(bytes int) error {
	if c == nil {
		return nilReceiver("Conn.SetWriteBuffer")
	}
	return c.sock.setBuffer("Conn.SetWriteBuffer", unix.SO_SNDBUF, bytes)
}

func (s *sock) setBuffer(fn string, opt, bytes int) error {
	if bytes < 0 || bytes > math.MaxInt32 {
		return s.opErr("set", argError(fn, "bytes", "= "+strconv.Itoa(bytes)+" is out of range"))
	}
	return s.guarded("set", func(fd int) error { return sysErr("setsockopt", fdio.SetsockoptInt(fd, unix.SOL_SOCKET, opt, bytes)) })
}

// CloseRead shuts down the reading side (shutdown(2) SHUT_RD): reads then
// return io.EOF.
func (c *Conn) CloseRead() error {
	if c == nil {
		return nilReceiver("Conn.CloseRead")
	}
	return c.guarded("close", func(fd int) error { return sysErr("shutdown", fdio.Shutdown(fd, unix.SHUT_RD)) })
}

// CloseWrite shuts down the writing side (shutdown(2) SHUT_WR): the peer
// reads io.EOF once it has what was written.
func (c *Conn) CloseWrite() error {
	if c == nil {
		return nilReceiver("Conn.CloseWrite")
	}
	return c.guarded("close", func(fd int) error { return sysErr("shutdown", fdio.Shutdown(fd, unix.SHUT_WR)) })
}

// SyscallConn returns a raw connection, as net.TCPConn's does: Control
// runs f with the fd held open; Read and Write run f until it returns
// true, waiting in between until the socket is readable or writable,
// under the read or write deadline. Where the Conn waits in Go's
// netpoller (the default) the socket is non-blocking and the waits are
// the netpoller's, as net's; with task.WithRingConnWaits it is in
// blocking mode and each wait is an io_uring POLL_ADD awaited by a task,
// so a read or write of f's own blocks its thread when nothing is ready.
func (c *Conn) SyscallConn() (syscall.RawConn, error) {
	if c == nil {
		return nil, nilReceiver("Conn.SyscallConn")
	}
	return &rawConn{s: &c.sock}, nil
}

// rawConn is the syscall.RawConn of a sock.
type rawConn struct{ s *sock }

func (rc *rawConn) Control(f func(fd uintptr)) error {
	if !rc.s.control(func(fd int) { f(uintptr(fd)) }) {
		return rc.s.opErr("raw-control", net.ErrClosed)
	}
	return nil
}

func (rc *rawConn) Read(f func(fd uintptr) bool) error {
	s := rc.s
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.np != nil {
		return rc.netpollWait(s.np.rc.Read, "raw-read", f)
	}
	return rc.wait(&s.rd, "raw-read", unix.POLLIN|unix.POLLRDHUP, f)
}

func (rc *rawConn) Write(f func(fd uintptr) bool) error {
	s := rc.s
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.np != nil {
		return rc.netpollWait(s.np.rc.Write, "raw-write", f)
	}
	return rc.wait(&s.wr, "raw-write", unix.POLLOUT, f)
}

// netpollWait is Read or Write on a socket whose waits are the
// netpoller's: the netpoller file's own (wait), which holds the fd open
// under f.
func (rc *rawConn) netpollWait(wait func(func(uintptr) bool) error, op string, f func(fd uintptr) bool) error {
	s := rc.s
	if s.closed.Load() {
		return s.opErr(op, net.ErrClosed)
	}
	if err := netpollErr(wait(f)); err != nil {
		return s.opErr(op, err)
	}
	return nil
}

// wait runs f until it returns true, polling for events in between (the
// caller holds r's mutex, so the fd stays open under f).
func (rc *rawConn) wait(r *connReq, op string, events uint32, f func(fd uintptr) bool) error {
	s := rc.s
	for {
		if s.closed.Load() {
			return s.opErr(op, net.ErrClosed)
		}
		if dl := r.dl.Load(); dl != 0 && time.Now().UnixNano() >= dl {
			return s.opErr(op, os.ErrDeadlineExceeded)
		}
		if f(uintptr(s.fd)) {
			return nil
		}
		r.events = events
		if _, err := s.io(r, "poll", reqPoll, nil); err != nil {
			return s.opErr(op, err)
		}
	}
}
