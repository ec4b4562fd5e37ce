//go:build linux

package goio

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
	"github.com/pure-uring/uring/task/goio/internal/zerocopy"
)

// io.Copy without user-space copies, as net's splice and sendfile: Conn
// and File implement io.ReaderFrom and io.WriterTo with sendfile(2) (a
// regular file into a Conn whose waits are the netpoller's) or
// IORING_OP_SPLICE (5.7) through a pipe: the source's pages go into the pipe and from there
// to the destination, in the kernel. Both ends must be fds that splice
// takes: a Conn, a File, a regular *os.File (or something that embeds one),
// optionally behind an *io.LimitedReader. Anything else, or a first splice
// the kernel refuses (EINVAL: a file system without splice, an O_APPEND
// destination; an old kernel without the opcode), falls back to a copy
// through a buffer, as net's genericReadFrom does.
//
// SPLICE always runs in an io-wq worker: a splice into a full socket
// blocks that worker until the peer reads (Close and deadlines cancel
// it). A socket source is polled (POLL_ADD) before each splice, so an
// idle connection holds no worker.

// withFile runs fn with f's fd (held open) and position, and advances the
// position by what fn moved.
func withFile(f *File, op string, fn func(ff *zerocopy.FdFile) (int64, error)) (n int64, err error, handled bool) {
	if !f.g.Acquire() {
		return 0, &os.PathError{Op: op, Path: f.name, Err: os.ErrClosed}, true
	}
	defer f.g.Release()
	if f.stream {
		return 0, nil, false // no position to splice at: a copy through Read and Write
	}
	f.mu.Lock()
	pos := f.off
	f.mu.Unlock()
	n, err = fn(&zerocopy.FdFile{Fd: f.fd, Off: pos})
	if err == zerocopy.ErrNotHandled {
		return 0, nil, false
	}
	f.mu.Lock()
	f.off = pos + n
	f.mu.Unlock()
	return n, err, true
}

// ReadFrom copies from r until EOF (io.ReaderFrom) without user-space
// copies from a File or a regular *os.File (each maybe behind an
// *io.LimitedReader): by sendfile(2), waiting in Go's netpoller as net's
// does, or, with task.WithRingConnWaits, by linked io_uring SPLICEs
// through a pipe; from another Conn by SPLICE; from anything else through
// a buffer. Errors are *net.OpError (Op "readfrom"), as net.TCPConn's.
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if c == nil {
		return 0, nilReceiver("Conn.ReadFrom")
	}
	n, err, handled := c.spliceFrom(r)
	if !handled {
		n, err = io.Copy(writerOnly{c}, r)
	}
	if err != nil && err != io.EOF {
		err = c.opErr("readfrom", err)
	}
	return n, err
}

// writerOnly hides a writer's ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }

// readerOnly hides a reader's WriteTo from io.Copy.
type readerOnly struct{ io.Reader }

func (c *Conn) spliceFrom(r io.Reader) (n int64, err error, handled bool) {
	r, lr, remain := zerocopy.Limited(r)
	if remain <= 0 {
		return 0, nil, true
	}
	switch src := r.(type) {
	case *File:
		n, err, handled = withFile(src, "read", func(ff *zerocopy.FdFile) (int64, error) { return c.spliceFromFd(ff, remain) })
	case *Conn:
		n, err = spliceConns(src, c, remain)
		handled = true
	case zerocopy.OSFile:
		n, err, handled = zerocopy.WithOSFile(src, func(ff *zerocopy.FdFile) (int64, error) { return c.spliceFromFd(ff, remain) })
	}
	if lr != nil {
		lr.N -= n
	}
	return n, err, handled
}

// spliceFromFd moves up to remain bytes of the file into c: the part the
// file's size covers in linked chains (spliceChains), the rest (a file
// that grew, or a chain that ended early) one splice at a time through c's
// write request (its deadline and Close apply).
func (c *Conn) spliceFromFd(ff *zerocopy.FdFile, remain int64) (int64, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	if c.np != nil {
		if n, err, ok := c.sendfileFrom(ff, remain); ok {
			return n, err
		}
	}
	p := &c.wpipe
	if err := p.Get(); err != nil {
		return 0, err
	}
	written, err := c.spliceChains(p, ff, remain)
	if err != nil || written == remain {
		return written, err
	}
	remain -= written
	r := &c.wr
	fill := func(n uint32) (int, error) {
		r.spIn, r.spOffIn, r.spOut, r.spOffOut, r.spLen = ff.Fd, ff.Off, p.W, -1, n
		m, err := c.io(r, "splice", reqSplice, nil)
		ff.Off += int64(m)
		return m, err
	}
	drain := func(n int) (int, error) {
		r.spIn, r.spOffIn, r.spOut, r.spOffOut, r.spLen = p.R, -1, c.fd, -1, uint32(n)
		return c.io(r, "splice", reqSplice, nil)
	}
	n, err := zerocopy.Pump(p, remain, fill, drain, written == 0)
	return written + n, err
}

// sendfileFrom sends up to remain bytes of a regular file from its offset
// into c with sendfile(2) from the caller's goroutine, waiting for the
// socket in Go's netpoller as net's own sendfile does: on a Conn whose
// waits are the netpoller's (the default, and the fallback) one syscall
// per socket bufferful beats the ring's file-pipe-socket splice pairs for
// one connection. ok is false for a file that is not regular (the splice
// path takes it). The caller holds c's write mutex.
func (c *Conn) sendfileFrom(ff *zerocopy.FdFile, remain int64) (n int64, err error, ok bool) {
	var st syscall.Stat_t
	if fdio.Fstat(ff.Fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return 0, nil, false
	}
	r := &c.wr
	for remain > 0 {
		r.spIn, r.spOffIn, r.spLen = ff.Fd, ff.Off, uint32(min(remain, maxIO))
		m, err := c.io(r, "sendfile", reqSendfile, nil)
		if n == 0 && m > 0 {
			zerocopy.Spliced.Add(1)
			zerocopy.Sentfile.Add(1)
		}
		n += int64(m)
		ff.Off += int64(m)
		remain -= int64(m)
		if err != nil || m == 0 { // m == 0: the file ended
			return n, err, true
		}
	}
	return n, nil, true
}

// chainPairs is how many file-to-pipe-to-socket pairs one chain links: 8
// MiB per submit and wait with 1 MiB pipes.
const chainPairs = 8

// spliceChains sends the file's bytes from its offset up to remain (or
// its size) into c as IOSQE_IO_LINK chains of SPLICE pairs (file to pipe,
// pipe to socket), each chain one task on c's executor: the io-wq worker
// runs a chain's splices back to back, and the caller waits once per
// chain instead of twice per pipeful. Every length is exact (the first
// pipeful ends on a page boundary, so each fills the pipe's page slots),
// so only the file's end or an error breaks a chain; then the bytes left
// in the pipe are dropped and the offset stays after the bytes sent.
// Close and the write deadline cancel a chain (ASYNC_CANCEL of its ops).
func (c *Conn) spliceChains(p *zerocopy.Pipe, ff *zerocopy.FdFile, remain int64) (int64, error) {
	var st syscall.Stat_t
	if fdio.Fstat(ff.Fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return 0, nil
	}
	remain = min(remain, st.Size-ff.Off)
	page := int64(os.Getpagesize())
	psz := int64(p.Size) &^ (page - 1)
	var written int64
	for remain > 0 {
		if c.closed.Load() {
			return written, net.ErrClosed
		}
		dl := c.wr.dl.Load()
		if dl != 0 && time.Now().UnixNano() >= dl {
			return written, os.ErrDeadlineExceeded
		}
		ops := make([]task.Op, 0, 2*chainPairs)
		lens := make([]int64, 0, chainPairs)
		off := ff.Off
		for len(lens) < chainPairs && remain > 0 {
			n := min(remain, psz-off%page)
			o := off
			ops = append(ops,
				task.SQEOp(func(s *sys.SQE) { _ = sqe.Splice(s, ff.Fd, o, p.W, -1, uint32(n), 0) }),
				task.SQEOp(func(s *sys.SQE) { _ = sqe.Splice(s, p.R, -1, c.fd, -1, uint32(n), 0) }))
			lens = append(lens, n)
			off += n
			remain -= n
		}
		seq := c.wr.seq.Load()
		ctx, cancel := context.WithCancel(context.Background())
		if dl != 0 {
			ctx, cancel = context.WithDeadline(context.Background(), time.Unix(0, dl))
		}
		c.chainCancel.Store(&cancel)
		if c.closed.Load() || c.wr.seq.Load() != seq {
			cancel() // Close or SetWriteDeadline came before the store
		}
		res, _ := call(ctx, c.env.rt, c.ex, func(t *task.T) ([]task.Result, error) { return t.Link(ops...) })
		c.chainCancel.Store(nil)
		cancel()
		if len(res) == 0 {
			res = make([]task.Result, len(ops)) // the chain never ran
			for i := range res {
				res[i].Res = -int32(unix.ECANCELED)
			}
		}
		sent, whole := int64(0), true
		var errno unix.Errno
		for i, n := range lens {
			in, out := res[2*i].Res, res[2*i+1].Res
			if out > 0 {
				sent += int64(out)
			}
			if int64(in) == n && int64(out) == n {
				continue
			}
			whole = false
			for _, r := range []int32{in, out} {
				if r < 0 && r != -int32(unix.ECANCELED) && errno == 0 {
					errno = unix.Errno(-r)
				}
			}
			break
		}
		if written == 0 && sent > 0 {
			zerocopy.Spliced.Add(1)
		}
		written += sent
		ff.Off += sent
		if whole {
			continue
		}
		p.Close() // what the chain left in the pipe goes
		if err := p.Get(); err != nil {
			return written, err
		}
		switch {
		case c.closed.Load():
			return written, net.ErrClosed
		case errno != 0 && errno != unix.EINTR && !(errno >= errRestartSys && errno <= errRestartBlock):
			return written, os.NewSyscallError("splice", errno)
		case c.wr.seq.Load() != seq:
			continue // a new deadline: go on under it
		case dl != 0 && time.Now().UnixNano() >= dl:
			return written, os.ErrDeadlineExceeded
		}
		return written, nil // the file ended early: the caller goes on one splice at a time
	}
	return written, nil
}

// cancelChain cancels the splice chain in flight, if any.
func (c *Conn) cancelChain() {
	if f := c.chainCancel.Load(); f != nil {
		(*f)()
	}
}

// fillFromSock is a pump fill from socket s through its read request: it
// polls until s is readable (no io-wq worker waits on an idle socket),
// then splices what is there into pipe w.
func fillFromSock(s *sock, w int) func(n uint32) (int, error) {
	r := &s.rd
	return func(n uint32) (int, error) {
		r.events = unix.POLLIN | unix.POLLRDHUP
		if _, err := s.io(r, "poll", reqPoll, nil); err != nil {
			return 0, err
		}
		r.spIn, r.spOffIn, r.spOut, r.spOffOut, r.spLen = s.fd, -1, w, -1, n
		return s.io(r, "splice", reqSplice, nil)
	}
}

// spliceConns moves up to remain bytes from src to dst: src's read
// request fills dst's write pipe, dst's write request drains it.
func spliceConns(src, dst *Conn, remain int64) (int64, error) {
	src.rmu.Lock()
	defer src.rmu.Unlock()
	dst.wmu.Lock()
	defer dst.wmu.Unlock()
	if src.closed.Load() || dst.closed.Load() {
		return 0, net.ErrClosed
	}
	p := &dst.wpipe
	if err := p.Get(); err != nil {
		return 0, err
	}
	r := &dst.wr
	drain := func(n int) (int, error) {
		r.spIn, r.spOffIn, r.spOut, r.spOffOut, r.spLen = p.R, -1, dst.fd, -1, uint32(n)
		return dst.io(r, "splice", reqSplice, nil)
	}
	n, err := zerocopy.Pump(p, remain, fillFromSock(&src.sock, p.W), drain, false)
	if err == zerocopy.ErrNotHandled {
		err = os.NewSyscallError("splice", unix.EINVAL) // sockets always splice
	}
	return n, err
}

// WriteTo copies from c until EOF into w (io.WriterTo): into a File, a
// regular *os.File or another Conn through SPLICE; into anything else
// through a buffer. Errors are *net.OpError (Op "writeto").
func (c *Conn) WriteTo(w io.Writer) (int64, error) {
	if c == nil {
		return 0, nilReceiver("Conn.WriteTo")
	}
	n, err, handled := c.spliceTo(w)
	if !handled {
		n, err = io.Copy(w, readerOnly{c})
	}
	if err != nil && err != io.EOF {
		err = c.opErr("writeto", err)
	}
	return n, err
}

func (c *Conn) spliceTo(w io.Writer) (n int64, err error, handled bool) {
	switch dst := w.(type) {
	case *Conn:
		n, err = spliceConns(c, dst, math.MaxInt64)
		return n, err, true
	case *File:
		return withFile(dst, "write", func(ff *zerocopy.FdFile) (int64, error) { return c.spliceToFd(ff, math.MaxInt64) })
	case zerocopy.OSFile:
		return zerocopy.WithOSFile(dst, func(ff *zerocopy.FdFile) (int64, error) {
			if app, err := fdio.Appends(ff.Fd); err != nil || app {
				return 0, zerocopy.ErrNotHandled // splice refuses O_APPEND, after the socket's data left it
			}
			return c.spliceToFd(ff, math.MaxInt64)
		})
	}
	return 0, nil, false
}

// spliceToFd moves up to remain bytes from c into the file at its
// position, both halves through c's read request.
func (c *Conn) spliceToFd(ff *zerocopy.FdFile, remain int64) (int64, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	p := &c.rpipe
	if err := p.Get(); err != nil {
		return 0, err
	}
	r := &c.rd
	drain := func(n int) (int, error) {
		r.spIn, r.spOffIn, r.spOut, r.spOffOut, r.spLen = p.R, -1, ff.Fd, ff.Off, uint32(n)
		m, err := c.io(r, "splice", reqSplice, nil)
		ff.Off += int64(m)
		return m, err
	}
	n, err := zerocopy.Pump(p, remain, fillFromSock(&c.sock, p.W), drain, false)
	if err == zerocopy.ErrNotHandled {
		err = os.NewSyscallError("splice", unix.EINVAL)
	}
	return n, err
}

// spliceFiles moves up to remain bytes from file in to file out, as one
// task on ex (of rt), through a pipe of its own.
func spliceFiles(rt *task.Runtime, ex *task.Executor, in, out *zerocopy.FdFile, remain int64) (int64, error) {
	var p zerocopy.Pipe
	if err := p.Get(); err != nil {
		return 0, err
	}
	defer p.Close()
	return call(context.Background(), rt, ex, func(t *task.T) (int64, error) {
		fill := func(n uint32) (int, error) {
			m, err := t.Splice(in.Fd, in.Off, p.W, -1, n, 0)
			in.Off += int64(m)
			return m, spliceErr(err)
		}
		drain := func(n int) (int, error) {
			m, err := t.Splice(p.R, -1, out.Fd, out.Off, uint32(n), 0)
			out.Off += int64(m)
			return m, spliceErr(err)
		}
		return zerocopy.Pump(&p, remain, fill, drain, true)
	})
}

// spliceErr is a task's splice error as net reports one (an
// *os.SyscallError), when the kernel answered.
func spliceErr(err error) error {
	var errno unix.Errno
	if err != nil && errors.As(err, &errno) {
		return os.NewSyscallError("splice", errno)
	}
	return err
}
