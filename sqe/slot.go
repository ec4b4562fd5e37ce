package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
)

// Slot is an index into the ring's registered (fixed) file table. It is
// never an fd: a Slot names a file only to requests that carry
// IOSQE_FIXED_FILE (see SetSlot) or a direct-descriptor target.
type Slot uint32

// MaxSlot is the highest slot the kernel accepts (IORING_MAX_FIXED_FILES-1).
const MaxSlot Slot = 1<<20 - 1

// AllocSlot, as the target of a direct-descriptor op (OpenatDirect,
// AcceptDirect, SocketDirect, PipeDirect, MsgRingFd, FilesUpdate), asks the
// kernel to pick a free slot (IORING_FILE_INDEX_ALLOC, Linux 5.19); the CQE's
// result is the slot it chose.
const AllocSlot Slot = 1<<32 - 1

// targetIndex is the one place that encodes a direct-descriptor target for
// the SQE's file_index field: 0 means "not direct", so slot n is n+1, and
// AllocSlot is IORING_FILE_INDEX_ALLOC.
func targetIndex(s Slot) uint32 {
	if s == AllocSlot {
		return sys.FileIndexAlloc
	}
	return uint32(s) + 1
}

// checkSlot accepts slots in [0, MaxSlot], and AllocSlot when alloc is true.
func checkSlot(fn, arg string, s Slot, alloc bool) error {
	if s <= MaxSlot || (alloc && s == AllocSlot) {
		return nil
	}
	if alloc {
		return argErr(fn, arg, "= "+strconv.FormatUint(uint64(s), 10)+" exceeds MaxSlot (1048575) and is not AllocSlot")
	}
	return argErr(fn, arg, "= "+strconv.FormatUint(uint64(s), 10)+" exceeds MaxSlot (1048575)")
}
