package fallback

import (
	"path/filepath"
	"runtime"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// The operations on Linux. Arguments are checked by the same sqe builders
// as on the ring (on a scratch SQE), so the errors are the same. Reads and
// writes try the call without waiting (preadv2/pwritev2 with RWF_NOWAIT,
// recv/send with MSG_DONTWAIT, which need no O_NONBLOCK on the fd) and
// wait for readiness only when it would block; a file that cannot be
// polled (a regular file whose data is not cached) is read on a goroutine.
// Calls that may block (open, fsync, rename ...) run on a goroutine while
// only the task parks.

// run runs wt's operation (first), or goes on with it after its fd became
// ready.
func (f *Backend) run(wt *wait, first bool) iop.Status {
	op, w := wt.op, wt.w
	var s sys.SQE // the ring path's checks, and its errors
	switch op.Code {
	case iop.Nop:
		return w.Finish(0, nil)
	case iop.Read, iop.ReadCached, iop.Write:
		return f.rw(wt, first)
	case iop.Recv, iop.Send, iop.SendZC:
		return f.sock(wt, first)
	case iop.Sendmsg, iop.Recvmsg:
		return f.msg(wt)
	case iop.Accept:
		return f.accept(wt, first)
	case iop.Connect:
		return f.connect(wt, first)
	case iop.Poll:
		return f.poll(wt)
	case iop.Sleep:
		return f.sleep(wt)
	case iop.Readv, iop.Writev:
		return f.rwv(wt, first)
	case iop.Openat, iop.Statx, iop.Unlinkat, iop.Mkdirat:
		if _, err := sqe.AppendPath(nil, op.Path); err != nil {
			return w.Finish(0, iop.RenameArg(err, "path"))
		}
		own := borrowed
		if op.Code == iop.Openat && op.Fd >= 0 && !filepath.IsAbs(op.Path) {
			// An open may wait for a FIFO's peer (or a device) for ever;
			// the others end by themselves.
			var err error
			if own, err = dupFds(op.Fd, -1); err != nil {
				return w.Finish(0, err)
			}
		}
		return f.blocking(wt, own)
	case iop.Renameat:
		if _, err := sqe.AppendPath(nil, op.Path); err != nil {
			return w.Finish(0, iop.RenameArg(err, "oldpath"))
		}
		if _, err := sqe.AppendPath(nil, op.Path2); err != nil {
			return w.Finish(0, iop.RenameArg(err, "newpath"))
		}
		return f.blocking(wt, borrowed)
	case iop.Fsync, iop.Fallocate, iop.Splice:
		var err error
		switch op.Code {
		case iop.Fsync:
			err = sqe.Fsync(&s, op.Fd, uint32(op.Flags))
		case iop.Fallocate:
			err = sqe.Fallocate(&s, op.Fd, op.Mode, op.Off, op.Len)
		default:
			err = sqe.Splice(&s, op.Fd2, op.Off2, op.Fd, op.Off, uint32(op.Len), uint32(op.Flags))
		}
		if err != nil {
			return w.Finish(0, err)
		}
		own := borrowed
		if op.Code == iop.Splice && first {
			if own, err = f.spliceFds(wt); err != nil {
				return w.Finish(0, err)
			}
		}
		return f.blocking(wt, own)
	case iop.Close:
		if op.Fd < 0 {
			return w.Finish(0, iop.BadArg("fd", "= "+strconv.Itoa(op.Fd)+" is negative"))
		}
		return w.Finish(0, unix.Close(op.Fd))
	case iop.Socket:
		if err := sqe.Socket(&s, op.Fd2, op.Flags, int(op.Mode)); err != nil {
			return w.Finish(0, err)
		}
		fd, err := unix.Socket(op.Fd2, op.Flags|unix.SOCK_CLOEXEC, int(op.Mode))
		return w.Finish(fd, err)
	case iop.Shutdown:
		if err := sqe.Shutdown(&s, op.Fd, op.Flags); err != nil {
			return w.Finish(0, err)
		}
		return w.Finish(0, unix.Shutdown(op.Fd, op.Flags))
	case iop.ReadFixed, iop.WriteFixed:
		return w.Finish(0, iop.Unsupported(op.Code, "a registered buffer"))
	case iop.Link:
		return f.link(wt)
	}
	return w.Finish(0, iop.Unsupported(op.Code, "this operation"))
}

// The ways a read or write goes on (wait.mode).
const (
	modeNowait    = iota // preadv2/pwritev2 without waiting, readiness when it would block
	modeReady            // a pipe or device without RWF_NOWAIT: readiness, then a call that cannot block
	modeReadySock        // a socket without RWF_NOWAIT: readiness, then MSG_DONTWAIT
)

// rw is Read and Write.
func (f *Backend) rw(wt *wait, first bool) iop.Status {
	op, w := wt.op, wt.w
	fd, buf, off := op.Fd, op.Buf, op.Off
	write := op.Code == iop.Write
	if first {
		if op.Fixed {
			return w.Finish(0, iop.Unsupported(op.Code, "a registered file"))
		}
		var s sys.SQE
		var err error
		if write {
			err = sqe.Write(&s, fd, buf, off)
		} else {
			err = sqe.Read(&s, fd, buf, off)
		}
		if err != nil {
			return w.Finish(0, err)
		}
		wt.mode = modeNowait
	}
	if wt.mode != modeNowait {
		return f.readyRW(wt)
	}
	ev := uint32(pollIn)
	try := fdio.PreadNowait
	if write {
		ev, try = pollOut, fdio.PwriteNowait
	}
	if NoNowait {
		try = func(int, []byte, int64) (int, error) { return 0, unix.EOPNOTSUPP }
	}
	for {
		n, err := try(fd, buf, off)
		switch {
		case err == nil:
			return w.Finish(n, nil)
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			werr := f.waitFd(wt, fd, ev)
			if werr == nil {
				return iop.Parked
			}
			if werr != errNotPollable {
				return w.Finish(0, werr)
			}
		case err == unix.EOPNOTSUPP: // a file without RWF_NOWAIT
			if off < 0 {
				var st unix.Stat_t
				if unix.Fstat(fd, &st) == nil {
					switch st.Mode & unix.S_IFMT {
					case unix.S_IFIFO, unix.S_IFCHR, unix.S_IFSOCK:
						// Pollable, but RWF_NOWAIT is refused (5.10's
						// pipes): readiness, then a call that cannot block.
						wt.mode = modeReady
						if st.Mode&unix.S_IFMT == unix.S_IFSOCK {
							wt.mode = modeReadySock
						}
						return f.readyRW(wt)
					}
				}
			}
		default:
			return w.Finish(0, err)
		}
		// A file the poller cannot wait for (a regular file, a block
		// device): the call ends by itself, on the task's fd.
		return f.blocking(wt, borrowed)
	}
}

// readyRW reads or writes a pipe, character device or socket whose
// kernel refuses RWF_NOWAIT, without blocking the executor and with the
// wait cancellable: a socket with MSG_DONTWAIT; otherwise, once ready,
// a read of at most what FIONREAD says is there (0 there and readable is
// EOF), a write of at most PIPE_BUF (what a writable pipe has room for).
func (f *Backend) readyRW(wt *wait) iop.Status {
	op, w := wt.op, wt.w
	fd, buf := op.Fd, op.Buf
	write, sock := op.Code == iop.Write, wt.mode == modeReadySock
	ev := uint32(pollIn)
	if write {
		ev = pollOut
	}
	for {
		var n int
		var err error
		switch {
		case sock && write:
			n, err = fdio.SendFlags(fd, buf, 0)
		case sock:
			n, err = fdio.RecvNonblock(fd, buf)
		default:
			n, err = boundedRW(fd, buf, write)
		}
		switch err {
		case nil:
			return w.Finish(n, nil)
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if werr := f.waitFd(wt, fd, ev); werr != nil {
				return w.Finish(0, werr)
			}
			return iop.Parked
		}
		return w.Finish(0, err)
	}
}

// rwv is Readv and Writev. On a regular file, a block device or a
// directory the call ends by itself and runs on a goroutine, on the
// task's fd. On a pipe, a socket, a terminal or another pollable fd,
// which may wait for another party for ever, it runs as a Read or Write
// does: preadv2/pwritev2 with RWF_NOWAIT (no O_NONBLOCK needed), and a
// wait for readiness when it would block, cancellable, on the executor's
// thread; so no call holds the task's buffers once the task has ended.
func (f *Backend) rwv(wt *wait, first bool) iop.Status {
	op, w := wt.op, wt.w
	fd, off := op.Fd, op.Off
	write := op.Code == iop.Writev
	if first {
		var s sys.SQE
		iov, err := sqe.Iovecs(nil, op.Bufs)
		if err == nil {
			if write {
				err = sqe.Writev(&s, fd, iov, off)
			} else {
				err = sqe.Readv(&s, fd, iov, off)
			}
		}
		if err != nil {
			return w.Finish(0, err)
		}
		typ, err := fdType(fd)
		if err != nil {
			return w.Finish(0, err)
		}
		if isFile(typ) {
			return f.blocking(wt, borrowed) // ends by itself
		}
		wt.mode = modeNowait
	}
	ev := uint32(pollIn)
	if write {
		ev = pollOut
	}
	for {
		var n int
		var err error
		switch {
		case wt.mode == modeReadySock && write:
			n, err = unix.SendmsgBuffers(fd, op.Bufs, nil, nil, unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
		case wt.mode == modeReadySock:
			n, _, _, _, err = unix.RecvmsgBuffers(fd, op.Bufs, nil, unix.MSG_DONTWAIT)
		case wt.mode == modeReady:
			n, err = boundedRWV(fd, op.Bufs, write)
		case NoNowait:
			err = unix.EOPNOTSUPP
		default:
			n, err = rwvNowait(fd, op.Bufs, off, write)
		}
		switch err {
		case nil:
			return w.Finish(n, nil)
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if werr := f.waitFd(wt, fd, ev); werr != nil {
				return w.Finish(0, werr)
			}
			return iop.Parked
		case unix.EOPNOTSUPP:
			if wt.mode != modeNowait {
				break
			}
			if off < 0 {
				typ, terr := fdType(fd)
				if terr != nil {
					return w.Finish(0, terr)
				}
				switch typ {
				case unix.S_IFSOCK:
					// RWF_NOWAIT refused: MSG_DONTWAIT.
					wt.mode = modeReadySock
					continue
				case unix.S_IFIFO, unix.S_IFCHR:
					// RWF_NOWAIT refused (5.10's pipes): readiness,
					// then a call that cannot block.
					wt.mode = modeReady
					continue
				}
			}
			// Neither a file nor a pipe, socket or device the poller
			// serves this way: the blocking call, on fds of its own
			// (it may wait for another party for ever).
			own, derr := dupFds(fd, -1)
			if derr != nil {
				return w.Finish(0, derr)
			}
			return f.blocking(wt, own)
		}
		return w.Finish(0, err)
	}
}

// rwvNowait is preadv2/pwritev2 of bufs at off (-1: the file position)
// with RWF_NOWAIT: EAGAIN when it would have to wait.
func rwvNowait(fd int, bufs [][]byte, off int64, write bool) (int, error) {
	iov, err := sqe.Iovecs(nil, bufs)
	if err != nil {
		return 0, err
	}
	var p unsafe.Pointer
	if len(iov) > 0 {
		p = unsafe.Pointer(&iov[0])
	}
	call := uintptr(unix.SYS_PREADV2)
	if write {
		call = unix.SYS_PWRITEV2
	}
	// pos_l, pos_h: the high half is only used where long is 32 bits.
	lo, hi := uintptr(off), uintptr(uint64(off)>>(unsafe.Sizeof(uintptr(0))*8-1)>>1)
	n, _, errno := unix.Syscall6(call, uintptr(fd), uintptr(p), uintptr(len(iov)), lo, hi, unix.RWF_NOWAIT)
	runtime.KeepAlive(bufs)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// boundedRWV is boundedRW for a vectored read or write: bufs cut to what
// a pipe holds (a read) or to PIPE_BUF (a write).
func boundedRWV(fd int, bufs [][]byte, write bool) (int, error) {
	limit, err := pipeBound(fd, write)
	switch {
	case err != nil || limit == 0:
		return 0, err // EAGAIN, or 0 bytes at EOF
	case write:
		return unix.Writev(fd, cutBufs(bufs, limit))
	}
	return unix.Readv(fd, cutBufs(bufs, limit))
}

// cutBufs is bufs holding at most limit bytes (-1: all of them).
func cutBufs(bufs [][]byte, limit int) [][]byte {
	if limit < 0 {
		return bufs
	}
	for i, b := range bufs {
		if len(b) >= limit {
			out := append([][]byte(nil), bufs[:i+1]...)
			out[i] = b[:limit]
			return out
		}
		limit -= len(b)
	}
	return bufs
}

// boundedRW is one read or write on a pipe or character device that
// cannot block: EAGAIN when it would have to wait.
func boundedRW(fd int, buf []byte, write bool) (int, error) {
	limit, err := pipeBound(fd, write)
	switch {
	case err != nil || limit == 0:
		return 0, err // EAGAIN, or 0 bytes at EOF
	case limit > 0 && len(buf) > limit:
		buf = buf[:limit]
	}
	if write {
		return unix.Write(fd, buf)
	}
	return unix.Read(fd, buf)
}

// pipeBound is how much a read or write of a pipe or character device
// may ask for without blocking: what the pipe holds (a read; FIONREAD),
// PIPE_BUF (a write), or -1 for any amount (a readable device that counts
// nothing, a write end whose readers are gone). 0 is EOF (a read whose
// writers are gone); EAGAIN: not ready.
func pipeBound(fd int, write bool) (int, error) {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if write {
		p[0].Events = unix.POLLOUT
	}
	if n, err := unix.Poll(p, 0); err != nil {
		return 0, err
	} else if n == 0 {
		return 0, unix.EAGAIN
	}
	if write {
		if p[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return -1, nil // the write fails at once (EPIPE)
		}
		return pipeBuf, nil
	}
	avail, err := unix.IoctlGetInt(fd, unix.TIOCINQ) // FIONREAD
	switch {
	case err != nil:
		return 0, err
	case avail > 0:
		return avail, nil
	case p[0].Revents&unix.POLLHUP != 0:
		return 0, nil // the writers are gone: EOF
	case p[0].Revents&unix.POLLIN == 0:
		return 0, unix.EAGAIN
	}
	return -1, nil // readable with nothing counted (a device): a read returns at once
}

// NoNowait makes the fallback's reads and writes take the path of a
// kernel without RWF_NOWAIT (tests).
var NoNowait bool

// pipeBuf is PIPE_BUF: a writable pipe has room for at least this much.
const pipeBuf = 4096

// sock is Recv, Send and SendZC.
func (f *Backend) sock(wt *wait, first bool) iop.Status {
	op, w := wt.op, wt.w
	fd, buf, flags := op.Fd, op.Buf, op.Flags
	send := op.Code != iop.Recv
	if first {
		var s sys.SQE
		var err error
		if send {
			err = sqe.Send(&s, fd, buf, flags)
		} else {
			err = sqe.Recv(&s, fd, buf, flags)
		}
		if err != nil {
			return w.Finish(0, err)
		}
	}
	ev := uint32(pollIn)
	try := fdio.RecvFlags
	if send {
		ev, try = pollOut, fdio.SendFlags
	}
	for {
		n, err := try(fd, buf, flags)
		switch {
		case err == nil:
			return w.Finish(n, nil)
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if werr := f.waitFd(wt, fd, ev); werr != nil {
				return w.Finish(0, werr)
			}
			return iop.Parked
		}
		return w.Finish(0, err)
	}
}

// accept is Accept. accept4 has no MSG_DONTWAIT: the listening socket
// itself must not block, or a connection gone between readiness and
// accept (or taken by another acceptor) would hold the executor's thread.
// Go's net keeps its listeners non-blocking too.
func (f *Backend) accept(wt *wait, first bool) iop.Status {
	op, w := wt.op, wt.w
	fd, flags := op.Fd, op.Flags
	if first {
		var s sys.SQE
		if err := sqe.Accept(&s, fd, nil, nil, flags); err != nil {
			return w.Finish(0, err)
		}
		if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil {
			return w.Finish(0, err)
		} else if fl&unix.O_NONBLOCK == 0 {
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl|unix.O_NONBLOCK); err != nil {
				return w.Finish(0, err)
			}
		}
	}
	for {
		if _, st, ok := f.ready(wt, fd, unix.POLLIN, pollIn); !ok {
			return st
		}
		nfd, peer, scope, err := fdio.Accept4(fd, flags|unix.SOCK_CLOEXEC)
		switch err {
		case nil:
			w.Peer = sockaddr.Zoned(peer, scope)
			return w.Finish(nfd, nil)
		case unix.EAGAIN, unix.EINTR, unix.ECONNABORTED:
			continue // another acceptor took it, or the peer left: wait again
		}
		return w.Finish(0, err)
	}
}

// msg is Sendmsg and Recvmsg, with MSG_DONTWAIT.
func (f *Backend) msg(wt *wait) iop.Status {
	op, w := wt.op, wt.w
	fd := op.Fd
	for {
		var err error
		var ev uint32
		if op.Code == iop.Sendmsg {
			var to unix.Sockaddr
			if op.Addr.IsValid() {
				to = sockaddr.FromAddrPort(op.Addr)
			}
			var n int
			n, err = unix.SendmsgBuffers(fd, op.Bufs, op.OOB, to, op.Flags|unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
			if err == nil {
				return w.Finish(n, nil)
			}
			ev = pollOut
		} else {
			n, oobn, recvflags, sa, rerr := unix.RecvmsgBuffers(fd, op.Bufs, op.OOB, op.Flags|unix.MSG_DONTWAIT)
			if rerr == nil {
				w.OOBN, w.RecvFlags, w.Peer = oobn, recvflags, sockaddr.ToAddrPort(sa)
				return w.Finish(n, nil)
			}
			err, ev = rerr, pollIn
		}
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if werr := f.waitFd(wt, fd, ev); werr != nil {
				return w.Finish(0, werr)
			}
			return iop.Parked
		}
		return w.Finish(0, err)
	}
}

// link checks a link chain's operations as the ring does, and refuses it.
func (f *Backend) link(wt *wait) iop.Status {
	var s sys.SQE
	var ts sys.Timespec
	for i := range wt.op.Links {
		o := &wt.op.Links[i]
		var err error
		switch o.Code {
		case iop.Read:
			err = sqe.Read(&s, o.Fd, o.Buf, o.Off)
		case iop.Write:
			err = sqe.Write(&s, o.Fd, o.Buf, o.Off)
		case iop.Fsync:
			err = sqe.Fsync(&s, o.Fd, uint32(o.Flags))
		case iop.Sleep:
			err = sqe.Timeout(&s, &ts, max(o.Dur, 0), 0, 0)
		}
		if err != nil {
			return wt.w.Finish(0, err)
		}
	}
	return wt.w.Finish(0, iop.Unsupported(iop.Link, "a link chain"))
}

// The ways a splice goes on (wait.mode), where a regular file is at one
// end and a pipe at the other, and the splice runs with SPLICE_F_NONBLOCK.
const (
	modeSpliceIn  = 1 + iota // fd_in is the pipe: wait for it to be readable
	modeSpliceOut            // fd_out is the pipe: wait for it to be writable
)

// spliceFds decides how the splice of wt holds its fds. Between a
// regular file (or block device) and a pipe it borrows them: it runs with
// SPLICE_F_NONBLOCK (which concerns only the pipe), so it waits for
// nothing but the file, and when the pipe would block it the task waits
// for the pipe's readiness instead, cancellable as a read's wait, and the
// call runs again (callWouldWait). Between pipes, sockets and devices it
// may wait for another party for ever: it gets fds of its own.
func (f *Backend) spliceFds(wt *wait) (owned, error) {
	op := wt.op
	in, err := fdType(op.Fd2)
	if err != nil {
		return borrowed, err
	}
	out, err := fdType(op.Fd)
	if err != nil {
		return borrowed, err
	}
	switch {
	case isFile(in) && out == unix.S_IFIFO, isFile(out) && in == unix.S_IFIFO:
		if op.Flags&unix.SPLICE_F_NONBLOCK == 0 && f.p != nil {
			op.Flags |= unix.SPLICE_F_NONBLOCK
			wt.mode = modeSpliceOut
			if in == unix.S_IFIFO {
				wt.mode = modeSpliceIn
			}
		}
		return borrowed, nil
	case isFile(in) || isFile(out):
		return borrowed, nil // no pipe at the other end: refused at once (EINVAL)
	}
	return dupFds(op.Fd, op.Fd2)
}

// callWouldWait reports whether the blocking call of wt ended with err
// where it would have waited (a splice that added SPLICE_F_NONBLOCK
// itself, with its pipe not ready): then the fd and event to wait for.
func (f *Backend) callWouldWait(wt *wait, err error) (fd int, ev uint32, ok bool) {
	if err != unix.EAGAIN || wt.op.Code != iop.Splice {
		return 0, 0, false
	}
	switch wt.mode {
	case modeSpliceIn:
		return wt.op.Fd2, pollIn, true
	case modeSpliceOut:
		return wt.op.Fd, pollOut, true
	}
	return 0, 0, false
}

// fdType is the file type of fd (its mode's S_IFMT bits).
func fdType(fd int) (uint32, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstat(fd, &st)
		if err != unix.EINTR {
			return st.Mode & unix.S_IFMT, err
		}
	}
}

// isFile reports whether a call on a file of type typ ends by itself (a
// regular file, a block device, a directory), as one on a pipe, a socket
// or a character device need not.
func isFile(typ uint32) bool {
	return typ == unix.S_IFREG || typ == unix.S_IFBLK || typ == unix.S_IFDIR
}

// callBlocking runs op's call, which may block (on a goroutine).
func callBlocking(op *iop.Op) (int, error) {
	fd := op.Fd
	switch op.Code {
	case iop.Read, iop.ReadCached, iop.Write:
		return blockingRW(fd, op.Buf, op.Off, op.Code == iop.Write)
	case iop.Readv, iop.Writev:
		write, bufs, off := op.Code == iop.Writev, op.Bufs, op.Off
		for {
			var n int
			var err error
			switch {
			case write && off < 0:
				n, err = unix.Writev(fd, bufs)
			case write:
				n, err = unix.Pwritev(fd, bufs, off)
			case off < 0:
				n, err = unix.Readv(fd, bufs)
			default:
				n, err = unix.Preadv(fd, bufs, off)
			}
			if err != unix.EINTR {
				return max(n, 0), err
			}
		}
	case iop.Openat:
		for {
			nfd, err := unix.Openat(fd, op.Path, op.Flags|unix.O_CLOEXEC, op.Mode)
			if err != unix.EINTR {
				return nfd, err
			}
		}
	case iop.Statx:
		return 0, unix.Statx(fd, op.Path, op.Flags, int(op.Mode), op.Stat)
	case iop.Fsync:
		if uint32(op.Flags)&sys.FsyncDatasync != 0 {
			return 0, unix.Fdatasync(fd)
		}
		return 0, unix.Fsync(fd)
	case iop.Fallocate:
		return 0, unix.Fallocate(fd, op.Mode, op.Off, op.Len)
	case iop.Unlinkat:
		return 0, unix.Unlinkat(fd, op.Path, op.Flags)
	case iop.Mkdirat:
		return 0, unix.Mkdirat(fd, op.Path, op.Mode)
	case iop.Renameat:
		return 0, unix.Renameat2(fd, op.Path, op.Fd2, op.Path2, uint(op.Flags))
	case iop.Splice:
		offIn, offOut := op.Off2, op.Off
		var pin, pout *int64
		if offIn >= 0 {
			pin = &offIn
		}
		if offOut >= 0 {
			pout = &offOut
		}
		for {
			m, err := unix.Splice(op.Fd2, pin, fd, pout, int(op.Len), int(op.Flags))
			if err != unix.EINTR {
				return int(max(m, 0)), err
			}
		}
	}
	return 0, iop.NeedsRing("this operation")
}
