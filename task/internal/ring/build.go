//go:build linux

package ring

import (
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// setPaths copies the paths of op, NUL-terminated, into sl (pinned): a bad
// path is rejected before any SQE is taken.
func (sl *slot) setPaths(op *iop.Op) error {
	var err error
	switch op.Code {
	case iop.Openat, iop.Statx, iop.Unlinkat, iop.Mkdirat:
		if sl.path, err = sqe.AppendPath(sl.path[:0], op.Path); err != nil {
			return iop.RenameArg(err, "path")
		}
		sl.pinBytes(sl.path)
	case iop.Renameat:
		if sl.path, err = sqe.AppendPath(sl.path[:0], op.Path); err != nil {
			return iop.RenameArg(err, "oldpath")
		}
		if sl.path2, err = sqe.AppendPath(sl.path2[:0], op.Path2); err != nil {
			return iop.RenameArg(err, "newpath")
		}
		sl.pinBytes(sl.path)
		sl.pinBytes(sl.path2)
	}
	return nil
}

// build fills s with op's SQE through the builder of package sqe, which
// checks the arguments, and keeps what the kernel may use referenced and
// pinned in sl.
func (r *Backend) build(s *sys.SQE, sl *slot, op *iop.Op) error {
	fd := op.Fd
	var err error
	switch op.Code {
	case iop.Nop:
		sqe.Nop(s)
	case iop.Read, iop.ReadCached, iop.Write, iop.ReadFixed, iop.WriteFixed:
		switch op.Code {
		case iop.Read, iop.ReadCached:
			err = sqe.Read(s, fd, op.Buf, op.Off)
		case iop.Write:
			err = sqe.Write(s, fd, op.Buf, op.Off)
		case iop.ReadFixed:
			err = sqe.ReadFixed(s, fd, op.Buf, op.Off, op.BufIndex)
		default:
			err = sqe.WriteFixed(s, fd, op.Buf, op.Off, op.BufIndex)
		}
		if err == nil && op.Fixed {
			err = sqe.SetSlot(s, sqe.Slot(fd))
		}
		if err == nil {
			sl.keepBytes(op.Buf)
		}
	case iop.Readv, iop.Writev:
		var iov []unix.Iovec
		if iov, err = sl.fillIov(op.Bufs); err == nil {
			if op.Code == iop.Writev {
				err = sqe.Writev(s, fd, iov, op.Off)
			} else {
				err = sqe.Readv(s, fd, iov, op.Off)
			}
		}
	case iop.Openat:
		err = sqe.Openat(s, fd, sl.path, op.Flags, op.Mode)
		sl.kind |= slotFdResult
	case iop.Close:
		err = sqe.Close(s, fd)
	case iop.Statx:
		if err = sqe.Statx(s, fd, sl.path, op.Flags, op.Mode, op.Stat); err == nil {
			sl.ptr, sl.heavy = op.Stat, true
			sl.pinPtr(op.Stat)
		}
	case iop.Fsync:
		err = sqe.Fsync(s, fd, uint32(op.Flags))
	case iop.Fallocate:
		err = sqe.Fallocate(s, fd, op.Mode, op.Off, op.Len)
	case iop.Unlinkat:
		err = sqe.Unlinkat(s, fd, sl.path, op.Flags)
	case iop.Mkdirat:
		err = sqe.Mkdirat(s, fd, sl.path, op.Mode)
	case iop.Renameat:
		err = sqe.Renameat(s, fd, sl.path, op.Fd2, sl.path2, uint32(op.Flags))
	case iop.Splice:
		err = sqe.Splice(s, op.Fd2, op.Off2, fd, op.Off, uint32(op.Len), uint32(op.Flags))
	case iop.Poll:
		err = sqe.PollAdd(s, fd, op.Events)
	case iop.Sleep:
		err = sqe.Timeout(s, &sl.ts, max(op.Dur, 0), 0, 0)
		sl.kind |= slotSleep
	case iop.Socket:
		err = sqe.Socket(s, op.Fd2, op.Flags, int(op.Mode))
		sl.kind |= slotFdResult
	case iop.Connect:
		err = sl.connect(s, fd, op)
	case iop.Accept:
		sl.sa = unix.RawSockaddrAny{}
		sl.salen = unix.SizeofSockaddrAny // the addrlen in/out word
		err = sqe.Accept(s, fd, &sl.sa, &sl.salen, op.Flags)
		sl.kind |= slotFdResult | slotPeer
	case iop.Recv:
		if err = sqe.Recv(s, fd, op.Buf, op.Flags); err == nil {
			sl.keepBytes(op.Buf)
		}
		sl.kind |= slotRecv
	case iop.Send:
		if err = sqe.Send(s, fd, op.Buf, op.Flags|unix.MSG_NOSIGNAL); err == nil {
			sl.keepBytes(op.Buf)
		}
	case iop.SendZC:
		if err = sqe.SendZC(s, fd, op.Buf, op.Flags|unix.MSG_NOSIGNAL, 0); err == nil {
			sl.keepBytes(op.Buf)
		}
		sl.kind |= slotZC
	case iop.Sendmsg:
		if err = sl.prepMsg(op.Bufs, op.OOB); err == nil {
			if op.Addr.IsValid() {
				sl.msg.Name = &sl.name[0]
				sl.msg.Namelen = sockaddr.Put(&sl.name, op.Addr)
			}
			err = sqe.Sendmsg(s, fd, &sl.msg, op.Flags|unix.MSG_NOSIGNAL)
		}
	case iop.Recvmsg:
		if err = sl.prepMsg(op.Bufs, op.OOB); err == nil {
			sl.name = [128]byte{}
			sl.msg.Name = &sl.name[0]
			sl.msg.Namelen = uint32(len(sl.name))
			err = sqe.Recvmsg(s, fd, &sl.msg, op.Flags)
		}
		sl.kind |= slotPeer | slotMsgOut
	case iop.Shutdown:
		err = sqe.Shutdown(s, fd, op.Flags)
	default:
		sqe.Nop(s)
	}
	return err
}

// fillIov builds the slot's iovec array for bufs (reused: no allocation
// once it is large enough) and pins every buffer and the array.
func (sl *slot) fillIov(bufs [][]byte) ([]unix.Iovec, error) {
	sl.heavy = true
	iov, err := sqe.Iovecs(sl.iov, bufs)
	if err != nil {
		return nil, err
	}
	sl.iov = iov
	for _, b := range bufs {
		sl.pinBytes(b)
	}
	sl.bufs = bufs
	if len(iov) > 0 {
		sl.pinPtr(&iov[0])
	}
	return iov, nil
}

// buildLinked fills s with a Link's op (the builders check the arguments);
// what the kernel reads lives in ts, and in the buffer's pin.
func buildLinked(s *sys.SQE, ts *sys.Timespec, o *iop.Op) error {
	switch o.Code {
	case iop.Raw:
		o.Prep(s)
		return nil
	case iop.Read:
		return sqe.Read(s, o.Fd, o.Buf, o.Off)
	case iop.Write:
		return sqe.Write(s, o.Fd, o.Buf, o.Off)
	case iop.Fsync:
		return sqe.Fsync(s, o.Fd, uint32(o.Flags))
	case iop.Sleep:
		// Its expiry (-ETIME) fails the link unless the kernel takes
		// ETIME_SUCCESS (5.16): then the ops after it run.
		var flags uint32
		if uring.CheckCapability(uring.CapTimeoutETimeSuccess) == nil {
			flags = sys.TimeoutETimeSuccess
		}
		return sqe.Timeout(s, ts, max(o.Dur, 0), 0, flags)
	default:
		sqe.Nop(s)
		return nil
	}
}
