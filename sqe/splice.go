//go:build linux

package sqe

import (
	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// Splice prepares splice(2) of up to n bytes from fdIn at offIn to fdOut at
// offOut; one side must be a pipe, whose offset is CurrentPos. With
// sys.SpliceFdInFixed in flags, fdIn is a registered-file slot (SetSlot
// covers fdOut): io_uring_prep_splice(3), IORING_OP_SPLICE, Linux 5.7. The
// result is the byte count. No memory is held.
func Splice(s *sys.SQE, fdIn int, offIn int64, fdOut int, offOut int64, n uint32, flags uint32) error {
	if err := firstErr(checkFd("Splice", "fdIn", fdIn), checkOff("Splice", "offIn", offIn),
		checkFd("Splice", "fdOut", fdOut), checkOff("Splice", "offOut", offOut)); err != nil {
		return err
	}
	prep(s, sys.OpSplice, fdOut, uint64(offIn), n, uint64(offOut))
	s.FileIndex = uint32(fdIn)
	s.OpFlags = flags
	return nil
}

// Tee prepares tee(2): duplicate up to n bytes from pipe fdIn to pipe fdOut
// without consuming them (sys.SpliceFdInFixed: fdIn is a slot):
// io_uring_prep_tee(3), IORING_OP_TEE, Linux 5.8. The result is the byte
// count. No memory is held.
func Tee(s *sys.SQE, fdIn, fdOut int, n uint32, flags uint32) error {
	if err := firstErr(checkFd("Tee", "fdIn", fdIn), checkFd("Tee", "fdOut", fdOut)); err != nil {
		return err
	}
	prep(s, sys.OpTee, fdOut, 0, n, 0)
	s.FileIndex = uint32(fdIn)
	s.OpFlags = flags
	return nil
}

const pipeFlags = unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_DIRECT

// Pipe prepares pipe2(2), storing the read and write fds in fds (O_CLOEXEC
// is always added; flags may hold O_NONBLOCK, O_DIRECT):
// io_uring_prep_pipe(3), IORING_OP_PIPE, Linux 6.16. The kernel writes
// *fds until the CQE.
func Pipe(s *sys.SQE, fds *[2]int32, flags int) error {
	if err := checkFlags32("Pipe", "flags", flags); err != nil {
		return err
	}
	if err := checkPipe("Pipe", fds, flags); err != nil {
		return err
	}
	prep(s, sys.OpPipe, 0, ptrOf(fds), 0, 0)
	s.OpFlags = uint32(flags | unix.O_CLOEXEC)
	return nil
}

// PipeDirect is Pipe into registered-file slots slot and slot+1 (AllocSlot:
// any two free slots), which it stores in fds: io_uring_prep_pipe_direct(3),
// IORING_OP_PIPE, Linux 6.16. O_CLOEXEC in flags is rejected. The kernel
// writes *fds until the CQE.
func PipeDirect(s *sys.SQE, fds *[2]int32, flags int, slot Slot) error {
	if err := checkFlags32("PipeDirect", "flags", flags); err != nil {
		return err
	}
	if slot == MaxSlot {
		return argErr("PipeDirect", "slot", "= 1048575 leaves no room for the write end")
	}
	if err := firstErr(checkPipe("PipeDirect", fds, flags), checkSlot("PipeDirect", "slot", slot, true),
		checkNoCloexec("PipeDirect", uint64(flags))); err != nil {
		return err
	}
	prep(s, sys.OpPipe, 0, ptrOf(fds), 0, 0)
	s.OpFlags = uint32(flags)
	s.FileIndex = targetIndex(slot)
	return nil
}

func checkPipe(fn string, fds *[2]int32, flags int) error {
	if fds == nil {
		return argErr(fn, "fds", "is nil")
	}
	return checkFlags(fn, "flags", uint32(flags), pipeFlags)
}
