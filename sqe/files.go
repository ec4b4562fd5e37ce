//go:build linux

package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
)

// FilesUpdate prepares an update of the registered file table from slot at
// on with the fds of fds (-1: clear the slot, sys.RegisterFilesSkip: leave
// it); with at = AllocSlot the kernel picks free slots and writes them back
// into fds: io_uring_prep_files_update(3), IORING_OP_FILES_UPDATE, Linux
// 5.6. The result is the number of slots updated. The kernel reads (and
// with AllocSlot writes) fds until the CQE.
func FilesUpdate(s *sys.SQE, fds []int32, at Slot) error {
	if len(fds) == 0 {
		return argErr("FilesUpdate", "len(fds)", "is 0")
	}
	if err := firstErr(checkLen32("FilesUpdate", "len(fds)", len(fds)), checkSlot("FilesUpdate", "at", at, true)); err != nil {
		return err
	}
	prep(s, sys.OpFilesUpdate, -1, addrOf(fds), uint32(len(fds)), uint64(at))
	return nil
}

// InstallFd prepares the installation of the registered file in slot
// as a normal fd (close-on-exec unless sys.FixedFdNoCloexec in flags); the
// result is the new fd: io_uring_prep_fixed_fd_install(3),
// IORING_OP_FIXED_FD_INSTALL, Linux 6.8. No memory is held.
func InstallFd(s *sys.SQE, slot Slot, flags uint32) error {
	if err := firstErr(checkSlot("InstallFd", "slot", slot, false), checkFlags("InstallFd", "flags", flags, sys.FixedFdNoCloexec)); err != nil {
		return err
	}
	prep(s, sys.OpFixedFdInstall, int(slot), 0, 0, 0)
	s.Flags = sys.SQEFixedFile
	s.OpFlags = flags
	return nil
}

// MaxBufferID is the largest buffer id of a provided-buffer group.
const MaxBufferID = 1<<16 - 1

// ProvideBuffers prepares the handing of nr buffers of bufLen bytes each,
// carved from mem in order, to provided-buffer group group with ids
// startID, startID+1, ...: io_uring_prep_provide_buffers(3),
// IORING_OP_PROVIDE_BUFFERS, Linux 5.7. The kernel writes into these
// buffers until each is returned in a CQE (or removed): mem must stay alive
// and, for the Go heap, pinned that long.
func ProvideBuffers(s *sys.SQE, mem []byte, bufLen uint32, nr int, group, startID uint16) error {
	switch {
	case nr < 1 || nr > MaxBufferID+1:
		return argErr("ProvideBuffers", "nr", "= "+strconv.Itoa(nr)+" is not in [1, 65536]")
	case bufLen == 0:
		return argErr("ProvideBuffers", "bufLen", "is 0")
	case uint64(bufLen)*uint64(nr) > uint64(len(mem)):
		return argErr("ProvideBuffers", "len(mem)", "= "+strconv.Itoa(len(mem))+" is less than nr*bufLen")
	case int(startID)+nr-1 > MaxBufferID:
		return argErr("ProvideBuffers", "startID", "= "+strconv.Itoa(int(startID))+" leaves no room for nr ids")
	}
	prep(s, sys.OpProvideBuffers, nr, addrOf(mem), bufLen, uint64(startID))
	s.BufIndex = group
	return nil
}

// RemoveBuffers prepares the removal of up to nr buffers from provided-
// buffer group group; the result is the number removed:
// io_uring_prep_remove_buffers(3), IORING_OP_REMOVE_BUFFERS, Linux 5.7. No
// memory is held (removed buffers are the caller's again at the CQE).
func RemoveBuffers(s *sys.SQE, nr int, group uint16) error {
	if nr < 1 || nr > MaxBufferID+1 {
		return argErr("RemoveBuffers", "nr", "= "+strconv.Itoa(nr)+" is not in [1, 65536]")
	}
	prep(s, sys.OpRemoveBuffers, nr, 0, 0, 0)
	s.BufIndex = group
	return nil
}
