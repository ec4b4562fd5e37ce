//go:build !linux

package goio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"syscall"
	"time"
)

// The goroutine-facing adapters off Linux: Go's own net and os objects,
// with the same types and methods as on Linux. Each is registered with an
// executor of the runtime, whose Close (and the runtime's Close) closes
// it, as on Linux.

// tracked is an adapter's object registered with an executor's registry.
type tracked struct {
	c   io.Closer
	reg *closers
}

// track registers c with the next executor of e: its Close closes c. It
// returns nil (and closes c) when the runtime is closing.
func (e *Env) track(c io.Closer) *tracked {
	if _, reg := e.pick(); reg != nil && reg.add(c) {
		return &tracked{c: c, reg: reg}
	}
	_ = c.Close()
	return nil
}

// untrack forgets s (its object was closed by its owner).
func (s *tracked) untrack() {
	if s != nil {
		s.reg.drop(s.c)
	}
}

// errRuntimeClosed is the error of an adapter made while the runtime
// closes.
var errRuntimeClosed = fmt.Errorf("goio: the runtime is closed: %w", net.ErrClosed)

// Listener is a net.Listener (Go's own, off Linux) whose connections are
// *Conn, with net's defaults.
type Listener struct {
	ln  net.Listener
	s   *tracked
	env *Env
}

// Listen listens on a stream address as net.Listen does: network is tcp,
// tcp4, tcp6 or unix.
func (e *Env) Listen(network, address string) (*Listener, error) {
	if e == nil {
		return nil, nilReceiver("Env.Listen")
	}
	switch network {
	case "tcp", "tcp4", "tcp6", "unix":
	case "unixpacket":
		return nil, &net.OpError{Op: "listen", Net: network, Err: argError("Env.Listen", "network", "= unixpacket is not supported (tcp, tcp4, tcp6 or unix)")}
	}
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	s := e.track(ln)
	if s == nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: errRuntimeClosed}
	}
	return &Listener{ln: ln, s: s, env: e}, nil
}

// Accept waits for the next connection.
func (l *Listener) Accept() (net.Conn, error) {
	if l == nil {
		return nil, nilReceiver("Listener.Accept")
	}
	c, err := l.ln.Accept()
	if err != nil {
		return nil, err
	}
	return l.env.wrapConn(c)
}

// SetDeadline sets the deadline of Accept.
func (l *Listener) SetDeadline(t time.Time) error {
	if l == nil {
		return nilReceiver("Listener.SetDeadline")
	}
	if d, ok := l.ln.(interface{ SetDeadline(time.Time) error }); ok {
		return d.SetDeadline(t)
	}
	return unsupported("Listener.SetDeadline")
}

// Close stops listening (a Unix socket's path is removed, as net does).
func (l *Listener) Close() error {
	if l == nil {
		return nilReceiver("Listener.Close")
	}
	l.s.untrack()
	return l.ln.Close()
}

// Fd returns the listening socket's fd (on Windows its handle; -1 when the
// listener has none), for tasks that accept on it themselves (t.Accept).
// It stays the listener's: Close closes it.
func (l *Listener) Fd() int {
	if l == nil {
		return -1
	}
	sc, ok := l.ln.(syscall.Conn)
	if !ok {
		return -1
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if rc.Control(func(s uintptr) { fd = int(s) }) != nil {
		return -1
	}
	return fd
}

// Addr is the listening address.
func (l *Listener) Addr() net.Addr {
	if l == nil {
		return nil
	}
	return l.ln.Addr()
}

// Conn is a stream connection (Go's own net.Conn, off Linux) with the
// method set of a *net.TCPConn.
type Conn struct {
	c net.Conn
	s *tracked
}

func (e *Env) wrapConn(c net.Conn) (*Conn, error) {
	s := e.track(c)
	if s == nil {
		return nil, &net.OpError{Op: "accept", Net: c.LocalAddr().Network(), Err: errRuntimeClosed}
	}
	return &Conn{c: c, s: s}, nil
}

// Dial connects to address as net.Dialer.DialContext does: network is
// tcp, tcp4, tcp6 or unix; every resolved address is tried and the
// context's deadline is honoured.
func (e *Env) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if e == nil {
		return nil, nilReceiver("Env.Dial")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	switch network {
	case "tcp", "tcp4", "tcp6", "unix":
	default:
		return nil, &net.OpError{Op: "dial", Net: network, Err: argError("Env.Dial", "network", "= "+network+" is not a stream network (tcp, tcp4, tcp6 or unix)")}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return e.wrapConn(c)
}

func (c *Conn) Read(b []byte) (int, error) {
	if c == nil {
		return 0, nilReceiver("Conn.Read")
	}
	return c.c.Read(b)
}

func (c *Conn) Write(b []byte) (int, error) {
	if c == nil {
		return 0, nilReceiver("Conn.Write")
	}
	return c.c.Write(b)
}

// Close closes the connection.
func (c *Conn) Close() error {
	if c == nil {
		return nilReceiver("Conn.Close")
	}
	c.s.untrack()
	return c.c.Close()
}

func (c *Conn) LocalAddr() net.Addr {
	if c == nil {
		return nil
	}
	return c.c.LocalAddr()
}

func (c *Conn) RemoteAddr() net.Addr {
	if c == nil {
		return nil
	}
	return c.c.RemoteAddr()
}

func (c *Conn) SetDeadline(t time.Time) error {
	if c == nil {
		return nilReceiver("Conn.SetDeadline")
	}
	return c.c.SetDeadline(t)
}

func (c *Conn) SetReadDeadline(t time.Time) error {
	if c == nil {
		return nilReceiver("Conn.SetReadDeadline")
	}
	return c.c.SetReadDeadline(t)
}

func (c *Conn) SetWriteDeadline(t time.Time) error {
	if c == nil {
		return nilReceiver("Conn.SetWriteDeadline")
	}
	return c.c.SetWriteDeadline(t)
}

// ReadFrom copies r to the connection (Go's sendfile/splice where its net
// has them).
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if c == nil {
		return 0, nilReceiver("Conn.ReadFrom")
	}
	if rf, ok := c.c.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.c}, r)
}

// WriteTo copies the connection to w.
func (c *Conn) WriteTo(w io.Writer) (int64, error) {
	if c == nil {
		return 0, nilReceiver("Conn.WriteTo")
	}
	if wt, ok := c.c.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	return io.Copy(w, struct{ io.Reader }{c.c})
}

// tcp is the TCP connection under c, or the error of fn on another kind.
func (c *Conn) tcp(fn string) (*net.TCPConn, error) {
	if c == nil {
		return nil, nilReceiver(fn)
	}
	if t, ok := c.c.(*net.TCPConn); ok {
		return t, nil
	}
	return nil, &net.OpError{Op: "set", Net: c.c.LocalAddr().Network(), Addr: c.c.LocalAddr(), Err: syscall.EINVAL}
}

func (c *Conn) SetNoDelay(noDelay bool) error {
	t, err := c.tcp("Conn.SetNoDelay")
	if err != nil {
		return err
	}
	return t.SetNoDelay(noDelay)
}

func (c *Conn) SetKeepAlive(keepalive bool) error {
	t, err := c.tcp("Conn.SetKeepAlive")
	if err != nil {
		return err
	}
	return t.SetKeepAlive(keepalive)
}

func (c *Conn) SetKeepAlivePeriod(d time.Duration) error {
	t, err := c.tcp("Conn.SetKeepAlivePeriod")
	if err != nil {
		return err
	}
	return t.SetKeepAlivePeriod(d)
}

func (c *Conn) SetKeepAliveConfig(config net.KeepAliveConfig) error {
	t, err := c.tcp("Conn.SetKeepAliveConfig")
	if err != nil {
		return err
	}
	return t.SetKeepAliveConfig(config)
}

func (c *Conn) SetLinger(sec int) error {
	t, err := c.tcp("Conn.SetLinger")
	if err != nil {
		return err
	}
	return t.SetLinger(sec)
}

// bufferSetter is what TCP and Unix connections share.
type bufferSetter interface {
	SetReadBuffer(int) error
	SetWriteBuffer(int) error
	CloseRead() error
	CloseWrite() error
	SyscallConn() (syscall.RawConn, error)
}

func (c *Conn) sock(fn string) (bufferSetter, error) {
	if c == nil {
		return nil, nilReceiver(fn)
	}
	if b, ok := c.c.(bufferSetter); ok {
		return b, nil
	}
	return nil, unsupported(fn)
}

func (c *Conn) SetReadBuffer(bytes int) error {
	b, err := c.sock("Conn.SetReadBuffer")
	if err != nil {
		return err
	}
	return b.SetReadBuffer(bytes)
}

func (c *Conn) SetWriteBuffer(bytes int) error {
	b, err := c.sock("Conn.SetWriteBuffer")
	if err != nil {
		return err
	}
	return b.SetWriteBuffer(bytes)
}

func (c *Conn) CloseRead() error {
	b, err := c.sock("Conn.CloseRead")
	if err != nil {
		return err
	}
	return b.CloseRead()
}

func (c *Conn) CloseWrite() error {
	b, err := c.sock("Conn.CloseWrite")
	if err != nil {
		return err
	}
	return b.CloseWrite()
}

func (c *Conn) SyscallConn() (syscall.RawConn, error) {
	b, err := c.sock("Conn.SyscallConn")
	if err != nil {
		return nil, err
	}
	return b.SyscallConn()
}

// unsupported is the error of a method the object under an adapter lacks.
func unsupported(fn string) error {
	return fmt.Errorf("goio: %s: %w on this connection", fn, errors.ErrUnsupported)
}

// PacketConn is a datagram socket (Go's own, off Linux): udp, udp4, udp6
// or unixgram.
type PacketConn struct {
	pc net.PacketConn
	s  *tracked
}

// ListenPacket opens a datagram socket as net.ListenPacket does: network
// is udp, udp4, udp6 or unixgram.
func (e *Env) ListenPacket(network, address string) (*PacketConn, error) {
	if e == nil {
		return nil, nilReceiver("Env.ListenPacket")
	}
	switch network {
	case "udp", "udp4", "udp6", "unixgram":
	default:
		return nil, &net.OpError{Op: "listen", Net: network, Err: argError("Env.ListenPacket", "network", "= "+network+" is not supported (udp, udp4, udp6 or unixgram)")}
	}
	pc, err := net.ListenPacket(network, address)
	if err != nil {
		return nil, err
	}
	s := e.track(pc)
	if s == nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: errRuntimeClosed}
	}
	return &PacketConn{pc: pc, s: s}, nil
}

func (pc *PacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	if pc == nil {
		return 0, nil, nilReceiver("PacketConn.ReadFrom")
	}
	return pc.pc.ReadFrom(b)
}

// ReadFromUDPAddrPort is ReadFrom with the sender as a netip.AddrPort
// (the zero value for a unixgram sender).
func (pc *PacketConn) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	if pc == nil {
		return 0, netip.AddrPort{}, nilReceiver("PacketConn.ReadFromUDPAddrPort")
	}
	if u, ok := pc.pc.(*net.UDPConn); ok {
		return u.ReadFromUDPAddrPort(b)
	}
	n, _, err := pc.pc.ReadFrom(b)
	return n, netip.AddrPort{}, err
}

func (pc *PacketConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	if pc == nil {
		return 0, nilReceiver("PacketConn.WriteTo")
	}
	return pc.pc.WriteTo(b, addr)
}

// WriteToUDPAddrPort is WriteTo to a netip.AddrPort (udp only).
func (pc *PacketConn) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	if pc == nil {
		return 0, nilReceiver("PacketConn.WriteToUDPAddrPort")
	}
	if u, ok := pc.pc.(*net.UDPConn); ok {
		return u.WriteToUDPAddrPort(b, addr)
	}
	return 0, unsupported("PacketConn.WriteToUDPAddrPort")
}

// Close closes the socket.
func (pc *PacketConn) Close() error {
	if pc == nil {
		return nilReceiver("PacketConn.Close")
	}
	pc.s.untrack()
	return pc.pc.Close()
}

func (pc *PacketConn) LocalAddr() net.Addr {
	if pc == nil {
		return nil
	}
	return pc.pc.LocalAddr()
}

func (pc *PacketConn) SetDeadline(t time.Time) error {
	if pc == nil {
		return nilReceiver("PacketConn.SetDeadline")
	}
	return pc.pc.SetDeadline(t)
}

func (pc *PacketConn) SetReadDeadline(t time.Time) error {
	if pc == nil {
		return nilReceiver("PacketConn.SetReadDeadline")
	}
	return pc.pc.SetReadDeadline(t)
}

func (pc *PacketConn) SetWriteDeadline(t time.Time) error {
	if pc == nil {
		return nilReceiver("PacketConn.SetWriteDeadline")
	}
	return pc.pc.SetWriteDeadline(t)
}

// packetSock is what UDP and Unix datagram sockets share.
type packetSock interface {
	SetReadBuffer(int) error
	SetWriteBuffer(int) error
	SyscallConn() (syscall.RawConn, error)
}

func (pc *PacketConn) sock(fn string) (packetSock, error) {
	if pc == nil {
		return nil, nilReceiver(fn)
	}
	if s, ok := pc.pc.(packetSock); ok {
		return s, nil
	}
	return nil, unsupported(fn)
}

func (pc *PacketConn) SetReadBuffer(bytes int) error {
	s, err := pc.sock("PacketConn.SetReadBuffer")
	if err != nil {
		return err
	}
	return s.SetReadBuffer(bytes)
}

func (pc *PacketConn) SetWriteBuffer(bytes int) error {
	s, err := pc.sock("PacketConn.SetWriteBuffer")
	if err != nil {
		return err
	}
	return s.SetWriteBuffer(bytes)
}

func (pc *PacketConn) SyscallConn() (syscall.RawConn, error) {
	s, err := pc.sock("PacketConn.SyscallConn")
	if err != nil {
		return nil, err
	}
	return s.SyscallConn()
}

// File is an open file (Go's own *os.File, off Linux) with the methods
// of the Linux File.
type File struct {
	f *os.File
	s *tracked
}

// OpenFile opens name with os.OpenFile's flags and permission bits.
func (e *Env) OpenFile(name string, flags int, perm os.FileMode) (*File, error) {
	if e == nil {
		return nil, nilReceiver("Env.OpenFile")
	}
	f, err := os.OpenFile(name, flags, perm)
	if err != nil {
		return nil, err
	}
	s := e.track(f)
	if s == nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: errRuntimeClosed}
	}
	return &File{f: f, s: s}, nil
}

// adopt makes a File of a file os.Root opened (DirFS), tracked as
// OpenFile's. It is opened again by its path (name), whose listings'
// DirEntry.Info stat by it, and must be the same file.
func (e *Env) adopt(of *os.File, name string) (*File, error) {
	defer of.Close()
	nf, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	a, aerr := of.Stat()
	b, berr := nf.Stat()
	if aerr != nil || berr != nil || !os.SameFile(a, b) {
		nf.Close()
		return nil, &os.PathError{Op: "open", Path: name, Err: errors.New("goio: the file changed while it was opened")}
	}
	s := e.track(nf)
	if s == nil {
		nf.Close()
		return nil, &os.PathError{Op: "open", Path: name, Err: errRuntimeClosed}
	}
	return &File{f: nf, s: s}, nil
}

// Fd is the file's descriptor (a handle on Windows).
func (f *File) Fd() int {
	if f == nil {
		return -1
	}
	return int(f.f.Fd())
}

func (f *File) Name() string {
	if f == nil {
		return ""
	}
	return f.f.Name()
}

func (f *File) ReadAt(b []byte, off int64) (int, error) {
	if f == nil {
		return 0, nilReceiver("File.ReadAt")
	}
	return f.f.ReadAt(b, off)
}

func (f *File) WriteAt(b []byte, off int64) (int, error) {
	if f == nil {
		return 0, nilReceiver("File.WriteAt")
	}
	return f.f.WriteAt(b, off)
}

func (f *File) Read(b []byte) (int, error) {
	if f == nil {
		return 0, nilReceiver("File.Read")
	}
	return f.f.Read(b)
}

func (f *File) Write(b []byte) (int, error) {
	if f == nil {
		return 0, nilReceiver("File.Write")
	}
	return f.f.Write(b)
}

func (f *File) Seek(offset int64, whence int) (int64, error) {
	if f == nil {
		return 0, nilReceiver("File.Seek")
	}
	return f.f.Seek(offset, whence)
}

func (f *File) Stat() (os.FileInfo, error) {
	if f == nil {
		return nil, nilReceiver("File.Stat")
	}
	return f.f.Stat()
}

func (f *File) Truncate(size int64) error {
	if f == nil {
		return nilReceiver("File.Truncate")
	}
	return f.f.Truncate(size)
}

func (f *File) Readdir(n int) ([]os.FileInfo, error) {
	if f == nil {
		return nil, nilReceiver("File.Readdir")
	}
	return f.f.Readdir(n)
}

func (f *File) ReadDir(n int) ([]os.DirEntry, error) {
	if f == nil {
		return nil, nilReceiver("File.ReadDir")
	}
	return f.f.ReadDir(n)
}

func (f *File) Sync() error {
	if f == nil {
		return nilReceiver("File.Sync")
	}
	return f.f.Sync()
}

// Close closes the file.
func (f *File) Close() error {
	if f == nil {
		return nilReceiver("File.Close")
	}
	f.s.untrack()
	return f.f.Close()
}

func (f *File) WriteTo(w io.Writer) (int64, error) {
	if f == nil {
		return 0, nilReceiver("File.WriteTo")
	}
	return f.f.WriteTo(w)
}

func (f *File) ReadFrom(r io.Reader) (int64, error) {
	if f == nil {
		return 0, nilReceiver("File.ReadFrom")
	}
	return f.f.ReadFrom(r)
}
