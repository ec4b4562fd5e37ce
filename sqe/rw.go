//go:build linux

package sqe

import (
	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// Nop prepares a request that does nothing and completes with result 0:
// io_uring_prep_nop(3), IORING_OP_NOP, Linux 5.1. No memory is held.
func Nop(s *sys.SQE) {
	prep(s, sys.OpNop, -1, 0, 0, 0)
}

// NopResult prepares a NOP that completes with result res (a negative res
// is -errno): IORING_OP_NOP with IORING_NOP_INJECT_RESULT, Linux 6.11. No
// memory is held.
func NopResult(s *sys.SQE, res int32) {
	prep(s, sys.OpNop, -1, 0, uint32(res), 0)
	s.OpFlags = sys.NopInjectResult
}

// NopCQE32 prepares a NOP that posts a 32-byte CQE whose extra 16 bytes
// are a and b (on a CQE32 or CQE_MIXED ring): IORING_OP_NOP with
// IORING_NOP_CQE32, Linux 6.18. No memory is held.
func NopCQE32(s *sys.SQE, a, b uint64) {
	prep(s, sys.OpNop, -1, b, 0, a)
	s.OpFlags = sys.NopCQE32
}

func checkRW(fn string, fd, n int, off int64) error {
	return firstErr(checkFd(fn, "fd", fd), checkLen32(fn, "len(buf)", n), checkOff(fn, "off", off))
}

func checkRWV(fn string, fd int, iov []unix.Iovec, off int64) error {
	return firstErr(checkFd(fn, "fd", fd), checkIov(fn, "iov", iov), checkOff(fn, "off", off))
}

// Read prepares pread(2) of up to len(buf) bytes from fd at off (CurrentPos:
// read(2) at the file position): io_uring_prep_read(3), IORING_OP_READ,
// Linux 5.6. The result is the byte count. The kernel writes buf until the
// CQE. With SetBufferSelect pass a nil buf (and use ReadSelect for a length).
func Read(s *sys.SQE, fd int, buf []byte, off int64) error {
	if err := checkRW("Read", fd, len(buf), off); err != nil {
		return err
	}
	prep(s, sys.OpRead, fd, addrOf(buf), uint32(len(buf)), uint64(off))
	return nil
}

// ReadSelect prepares a read of up to n bytes into a buffer the kernel
// takes from provided-buffer group group (IOSQE_BUFFER_SELECT, Linux 5.7;
// n = 0: the whole buffer): io_uring_prep_read(3), IORING_OP_READ, Linux
// 5.6. The CQE names the buffer (cqe.Buffer); the kernel writes into it
// until the CQE. No other memory is held.
func ReadSelect(s *sys.SQE, fd int, n uint32, off int64, group uint16) error {
	if err := firstErr(checkFd("ReadSelect", "fd", fd), checkOff("ReadSelect", "off", off)); err != nil {
		return err
	}
	prep(s, sys.OpRead, fd, 0, n, uint64(off))
	s.Flags = sys.SQEBufferSelect
	s.BufIndex = group
	return nil
}

// Write prepares pwrite(2) of buf to fd at off (CurrentPos: write(2) at the
// file position): io_uring_prep_write(3), IORING_OP_WRITE, Linux 5.6. The
// result is the byte count. The kernel reads buf until the CQE.
func Write(s *sys.SQE, fd int, buf []byte, off int64) error {
	if err := checkRW("Write", fd, len(buf), off); err != nil {
		return err
	}
	prep(s, sys.OpWrite, fd, addrOf(buf), uint32(len(buf)), uint64(off))
	return nil
}

// Readv prepares preadv(2) into the buffers iov describes (build it with
// Iovecs; at most IOVMax): io_uring_prep_readv(3), IORING_OP_READV, Linux
// 5.1. The kernel reads iov and writes the buffers until the CQE (iov itself
// may be reused once the SQE is submitted on kernels with
// FEAT_SUBMIT_STABLE, 5.5+; keeping it alive to the CQE is always safe).
func Readv(s *sys.SQE, fd int, iov []unix.Iovec, off int64) error {
	return vec(s, "Readv", sys.OpReadv, fd, iov, off, 0)
}

// Readv2 is Readv with preadv2(2) RWF_* flags: io_uring_prep_readv2(3),
// IORING_OP_READV, Linux 5.1. Memory as for Readv.
func Readv2(s *sys.SQE, fd int, iov []unix.Iovec, off int64, flags uint32) error {
	return vec(s, "Readv2", sys.OpReadv, fd, iov, off, flags)
}

func vec(s *sys.SQE, fn string, op sys.Op, fd int, iov []unix.Iovec, off int64, flags uint32) error {
	if err := checkRWV(fn, fd, iov, off); err != nil {
		return err
	}
	prep(s, op, fd, addrOf(iov), uint32(len(iov)), uint64(off))
	s.OpFlags = flags
	return nil
}

// Writev prepares pwritev(2) of the buffers iov describes:
// io_uring_prep_writev(3), IORING_OP_WRITEV, Linux 5.1. The kernel reads
// iov and the buffers until the CQE.
func Writev(s *sys.SQE, fd int, iov []unix.Iovec, off int64) error {
	return vec(s, "Writev", sys.OpWritev, fd, iov, off, 0)
}

// Writev2 is Writev with pwritev2(2) RWF_* flags: io_uring_prep_writev2(3),
// IORING_OP_WRITEV, Linux 5.1. Memory as for Writev.
func Writev2(s *sys.SQE, fd int, iov []unix.Iovec, off int64, flags uint32) error {
	return vec(s, "Writev2", sys.OpWritev, fd, iov, off, flags)
}

// ReadFixed prepares a read into buf, which must lie inside registered
// buffer bufIndex: io_uring_prep_read_fixed(3), IORING_OP_READ_FIXED, Linux
// 5.1. The kernel writes buf until the CQE (registered buffers live off the
// Go heap, see package reg).
func ReadFixed(s *sys.SQE, fd int, buf []byte, off int64, bufIndex uint16) error {
	if err := checkRW("ReadFixed", fd, len(buf), off); err != nil {
		return err
	}
	prep(s, sys.OpReadFixed, fd, addrOf(buf), uint32(len(buf)), uint64(off))
	s.BufIndex = bufIndex
	return nil
}

// WriteFixed prepares a write of buf, which must lie inside registered
// buffer bufIndex: io_uring_prep_write_fixed(3), IORING_OP_WRITE_FIXED,
// Linux 5.1. The kernel reads buf until the CQE.
func WriteFixed(s *sys.SQE, fd int, buf []byte, off int64, bufIndex uint16) error {
	if err := checkRW("WriteFixed", fd, len(buf), off); err != nil {
		return err
	}
	prep(s, sys.OpWriteFixed, fd, addrOf(buf), uint32(len(buf)), uint64(off))
	s.BufIndex = bufIndex
	return nil
}

// ReadvFixed prepares a vectored read whose iovecs all lie inside
// registered buffer bufIndex: io_uring_prep_readv_fixed(3),
// IORING_OP_READV_FIXED, Linux 6.15. The kernel reads iov and writes the
// buffers until the CQE.
func ReadvFixed(s *sys.SQE, fd int, iov []unix.Iovec, off int64, flags uint32, bufIndex uint16) error {
	if err := checkRWV("ReadvFixed", fd, iov, off); err != nil {
		return err
	}
	prep(s, sys.OpReadvFixed, fd, addrOf(iov), uint32(len(iov)), uint64(off))
	s.OpFlags = flags
	s.BufIndex = bufIndex
	return nil
}

// WritevFixed prepares a vectored write whose iovecs all lie inside
// registered buffer bufIndex: io_uring_prep_writev_fixed(3),
// IORING_OP_WRITEV_FIXED, Linux 6.15. The kernel reads iov and the buffers
// until the CQE.
func WritevFixed(s *sys.SQE, fd int, iov []unix.Iovec, off int64, flags uint32, bufIndex uint16) error {
	if err := checkRWV("WritevFixed", fd, iov, off); err != nil {
		return err
	}
	prep(s, sys.OpWritevFixed, fd, addrOf(iov), uint32(len(iov)), uint64(off))
	s.OpFlags = flags
	s.BufIndex = bufIndex
	return nil
}

// ReadMultishot prepares a read that repeats each time fd (a pipe, socket
// or other pollable file) has data, each CQE naming a buffer of provided-
// buffer group group holding up to n bytes (0: the buffer's size), with
// F_MORE while it stays armed: io_uring_prep_read_multishot(3),
// IORING_OP_READ_MULTISHOT, Linux 6.7. off must be 0 or CurrentPos. Only
// the provided buffers are held.
func ReadMultishot(s *sys.SQE, fd int, n uint32, off int64, group uint16) error {
	if err := firstErr(checkFd("ReadMultishot", "fd", fd), checkOff("ReadMultishot", "off", off)); err != nil {
		return err
	}
	prep(s, sys.OpReadMultishot, fd, 0, n, uint64(off))
	s.Flags = sys.SQEBufferSelect
	s.BufIndex = group
	return nil
}
