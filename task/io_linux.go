package task

import (
	"net/netip"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// The awaits only Linux has. Those only io_uring has (registered buffers
// and files, raw SQEs) return an *OpError wrapping uring.ErrUnsupported on
// the fallback backend.

// ReadCached is Read for a buffered (not O_DIRECT) file whose data is
// likely in the page cache. When the read would go to the kernel alone
// (no other task runnable, nothing queued in the SQ), it is first tried
// with preadv2(RWF_NOWAIT) on the executor's thread: a cache hit then
// costs one plain system call instead of an io_uring round trip, whose
// enter dominates small reads (1.3-1.5x the time of pread here). A miss
// (EAGAIN), any error (the ring's answer is the one reported) and every
// read while other work is pending take the ring as Read does, so
// batches stay batches. Do not use it on O_DIRECT files: RWF_NOWAIT does
// not stop those from waiting for the device, on the executor's thread.
func (t *T) ReadCached(fd int, buf []byte, off int64) (int, error) {
	op := t.ex.prep(iop.ReadCached, fd)
	op.Buf, op.Off = buf, off
	return t.await()
}

// ReadFixed reads into buf, which lies in registered buffer bufIndex
// (IORING_OP_READ_FIXED, 5.1).
func (t *T) ReadFixed(fd int, buf []byte, off int64, bufIndex uint16) (int, error) {
	op := t.ex.prep(iop.ReadFixed, fd)
	op.Buf, op.Off, op.BufIndex = buf, off, bufIndex
	return t.await()
}

// WriteFixed writes buf, which lies in registered buffer bufIndex
// (IORING_OP_WRITE_FIXED, 5.1).
func (t *T) WriteFixed(fd int, buf []byte, off int64, bufIndex uint16) (int, error) {
	op := t.ex.prep(iop.WriteFixed, fd)
	op.Buf, op.Off, op.BufIndex = buf, off, bufIndex
	return t.await()
}

// ReadSlot reads from the registered (fixed) file in slot.
func (t *T) ReadSlot(slot sqe.Slot, buf []byte, off int64) (int, error) {
	op := t.ex.prep(iop.Read, int(slot))
	op.Buf, op.Off, op.Fixed = buf, off, true
	return t.await()
}

// WriteSlot writes to the registered (fixed) file in slot.
func (t *T) WriteSlot(slot sqe.Slot, buf []byte, off int64) (int, error) {
	op := t.ex.prep(iop.Write, int(slot))
	op.Buf, op.Off, op.Fixed = buf, off, true
	return t.await()
}

// Readv reads into bufs at off (IORING_OP_READV, 5.1).
func (t *T) Readv(fd int, bufs [][]byte, off int64) (int, error) {
	op := t.ex.prep(iop.Readv, fd)
	op.Bufs, op.Off = bufs, off
	return t.await()
}

// Writev writes bufs at off (IORING_OP_WRITEV, 5.1).
func (t *T) Writev(fd int, bufs [][]byte, off int64) (int, error) {
	op := t.ex.prep(iop.Writev, fd)
	op.Bufs, op.Off = bufs, off
	return t.await()
}

// Statx fills st for path relative to dirfd (IORING_OP_STATX, 5.6).
func (t *T) Statx(dirfd int, path string, flags int, mask uint32, st *unix.Statx_t) error {
	if st == nil {
		return argError("Statx", "st", "is nil")
	}
	op := t.ex.prep(iop.Statx, dirfd)
	op.Path, op.Flags, op.Mode, op.Stat = path, flags, mask, st
	_, err := t.await()
	return err
}

// Fallocate allocates [off, off+length) of fd (IORING_OP_FALLOCATE, 5.6).
func (t *T) Fallocate(fd int, mode uint32, off, length int64) error {
	op := t.ex.prep(iop.Fallocate, fd)
	op.Mode, op.Off, op.Len = mode, off, length
	_, err := t.await()
	return err
}

// Unlinkat removes path (unix.AT_REMOVEDIR for a directory)
// (IORING_OP_UNLINKAT, 5.11).
func (t *T) Unlinkat(dirfd int, path string, flags int) error {
	op := t.ex.prep(iop.Unlinkat, dirfd)
	op.Path, op.Flags = path, flags
	_, err := t.await()
	return err
}

// Mkdirat creates directory path (IORING_OP_MKDIRAT, 5.15).
func (t *T) Mkdirat(dirfd int, path string, mode uint32) error {
	op := t.ex.prep(iop.Mkdirat, dirfd)
	op.Path, op.Mode = path, mode
	_, err := t.await()
	return err
}

// Renameat renames oldpath to newpath (IORING_OP_RENAMEAT, 5.11).
func (t *T) Renameat(olddirfd int, oldpath string, newdirfd int, newpath string, flags uint32) error {
	op := t.ex.prep(iop.Renameat, olddirfd)
	op.Path, op.Fd2, op.Path2, op.Flags = oldpath, newdirfd, newpath, int(flags)
	_, err := t.await()
	return err
}

// Splice moves up to n bytes from fdIn to fdOut (offsets -1 for pipes)
// (IORING_OP_SPLICE, 5.7).
func (t *T) Splice(fdIn int, offIn int64, fdOut int, offOut int64, n uint32, flags uint32) (int, error) {
	op := t.ex.prep(iop.Splice, fdOut)
	op.Fd2, op.Off2, op.Off, op.Len, op.Flags = fdIn, offIn, offOut, int64(n), int(flags)
	return t.await()
}

// SendZC sends buf without copying it (IORING_OP_SEND_ZC, 6.0). The kernel
// holds buf until its notification CQE; SendZC returns after that CQE, so
// buf is free again when it returns. On the fallback it is Send.
func (t *T) SendZC(fd int, buf []byte, flags int) (int, error) {
	op := t.ex.prep(iop.SendZC, fd)
	op.Buf, op.Flags = buf, flags
	return t.await()
}

// Sendmsg sends bufs and the control data oob, to addr when it is valid
// (unconnected sockets) (IORING_OP_SENDMSG, 5.3); MSG_NOSIGNAL is added.
func (t *T) Sendmsg(fd int, bufs [][]byte, oob []byte, addr netip.AddrPort, flags int) (int, error) {
	op := t.ex.prep(iop.Sendmsg, fd)
	op.Bufs, op.OOB, op.Addr, op.Flags = bufs, oob, addr, flags
	return t.await()
}

// Recvmsg receives into bufs and oob (IORING_OP_RECVMSG, 5.3); it returns
// the byte count, the control bytes, the msg flags and the sender.
func (t *T) Recvmsg(fd int, bufs [][]byte, oob []byte, flags int) (n, oobn, recvflags int, from netip.AddrPort, err error) {
	op := t.ex.prep(iop.Recvmsg, fd)
	op.Bufs, op.OOB, op.Flags = bufs, oob, flags
	if n, err = t.await(); err != nil {
		return 0, 0, 0, from, err
	}
	w := &t.io
	return n, w.OOBN, w.RecvFlags, w.Peer, nil
}

// Await submits the SQE prep fills (user_data is set afterwards) and waits
// for its CQE. Memory the SQE points at is the caller's to keep alive and
// pinned until Await returns; prefer the typed awaits, which do that. An
// opcode the kernel lacks is refused before anything is submitted (an
// *OpError wrapping uring.ErrUnsupported that names it). If prep panics,
// nothing is submitted (the SQE becomes an ignored NOP) and the panic goes
// on.
//
// An op that posts more than one CQE (SEND_ZC and SENDMSG_ZC: the result,
// then the notification; a multishot op) is awaited until its last CQE,
// the one without IORING_CQE_F_MORE, when the kernel lets go of its
// memory: Await then returns the first CQE's result and flags (less
// F_MORE), the send's byte count for SEND_ZC. If that first result was a
// success but the op ended with an error CQE (a multishot op's), Await
// returns that error instead. The CQEs in between are dropped: a multishot
// op is better run with the typed streams.
func (t *T) Await(prep func(s *sys.SQE)) (res int32, flags uint32, err error) {
	ex := t.ex
	rs := ex.raw
	if rs == nil {
		return 0, 0, iop.Unsupported(iop.Raw, "a raw SQE")
	}
	if err := t.check(); err != nil {
		return 0, 0, opError("await", -1, err)
	}
	w := &t.io
	w.Begin()
	deadline := t.opDeadline()
	s, err := rs.RawSQE(w, deadline)
	if err != nil {
		return 0, 0, opError("await", -1, err)
	}
	fillRaw(rs, w, s, prep) // here, not in the backend: prep stays on the caller's stack
	code, fd := s.Opcode, int(s.Fd)
	n, err := t.complete(rs.SubmitRaw(w, s, deadline), iop.Raw, fd, opClassOf[code])
	return int32(n), w.CFlags, err
}

// fillRaw runs prep on s, the SQE of w's raw op; if prep panics, s is
// abandoned (an ignored NOP, its slot freed) before the panic goes on.
func fillRaw(rs iop.RawSQEs, w *iop.Waiter, s *sys.SQE, prep func(*sys.SQE)) {
	filled := false
	defer func() {
		if !filled {
			rs.AbandonRaw(w, s)
		}
	}()
	prep(s)
	filled = true
}
