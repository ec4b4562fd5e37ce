//go:build linux

package reg

import (
	"runtime"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// Values an fds entry may hold besides an open fd.
const (
	// Empty leaves a slot (or makes it) empty.
	Empty = -1
	// Skip, in Files.Update, leaves the slot as it is (IORING_REGISTER_FILES_SKIP).
	Skip = int(sys.RegisterFilesSkip)
)

// maxFiles is IORING_MAX_FIXED_FILES.
const maxFiles = 1 << 20

// Files is a ring's registered (fixed) file table, addressed by sqe.Slot.
//
// Tags: a slot registered with a nonzero tag posts a CQE with user_data =
// tag, res = 0 and flags = 0 when the file really leaves the table, that is
// after an Update or Unregister replaced it AND every request that was
// using it has completed. Reap it like any other CQE. Before Linux 6.13
// Unregister posts no tags and an Update's tag comes later, from a
// workqueue (see the package comment).
//
// A Files is not safe for concurrent use.
type Files struct {
	t Target
	n uint32
}

// RegisterFiles registers a table of len(fds) slots (IORING_REGISTER_FILES2,
// Linux 5.13): slot i (sqe.Slot(i), for sqe.SetSlot and task's ReadSlot)
// holds fds[i]'s file. An fd of Empty leaves that slot empty. tags is nil or has one
// tag per slot (0 = no tag; empty slots must have tag 0). The kernel takes
// its own reference to each file: closing an fd afterwards does not empty
// its slot.
func RegisterFiles(t Target, fds []int, tags []uint64) (*Files, error) {
	const fn = "RegisterFiles"
	if len(fds) == 0 || len(fds) > maxFiles {
		return nil, argErr(fn, "len(fds)", eq(len(fds))+" is not in [1, 1<<20]")
	}
	if tags != nil && len(tags) != len(fds) {
		return nil, argErr(fn, "len(tags)", eq(len(tags))+" differs from len(fds) = "+itoa(len(fds)))
	}
	fds32, err := toFds32(fn, fds, false)
	if err != nil {
		return nil, err
	}
	var p runtime.Pinner
	defer p.Unpin()
	rr := sys.RsrcRegister{Nr: uint32(len(fds)), Data: addrOf(&p, fds32), Tags: addrOf(&p, tags)}
	if _, err := register(t, sys.RegisterFiles2, &rr, uint32(sys.SizeOf[sys.RsrcRegister]())); err != nil {
		return nil, err
	}
	return &Files{t: t, n: uint32(len(fds))}, nil
}

// RegisterSparseFiles registers a table of n empty slots
// (IORING_RSRC_REGISTER_SPARSE, Linux 5.19), to be filled by Update or by
// direct-descriptor ops (open/accept/socket with a slot target).
func RegisterSparseFiles(t Target, n uint32) (*Files, error) {
	if n == 0 || n > maxFiles {
		return nil, argErr("RegisterSparseFiles", "n", equ(uint64(n))+" is not in [1, 1<<20]")
	}
	rr := sys.RsrcRegister{Nr: n, Flags: sys.RsrcRegisterSparse}
	if _, err := register(t, sys.RegisterFiles2, &rr, uint32(sys.SizeOf[sys.RsrcRegister]())); err != nil {
		return nil, err
	}
	return &Files{t: t, n: n}, nil
}

// Len returns the number of slots.
func (f *Files) Len() uint32 { return f.n }

// Validate reports whether s is a slot of this table, before an SQE that
// uses it is submitted.
func (f *Files) Validate(s sqe.Slot) error {
	if f.n == 0 {
		return argErr("Files.Validate", "slot", "names a slot of an unregistered file table")
	}
	if uint64(s) >= uint64(f.n) {
		return argErr("Files.Validate", "slot", equ(uint64(s))+" is out of range [0, "+utoa(uint64(f.n))+")")
	}
	return nil
}

// Update replaces slots first, first+1, … with fds (IORING_REGISTER_FILES_UPDATE2,
// Linux 5.13). Empty empties a slot, Skip leaves it alone. tags is nil or
// one per fd. A request already using a replaced file keeps it until it
// completes. It returns how many slots were updated.
func (f *Files) Update(first sqe.Slot, fds []int, tags []uint64) (int, error) {
	const fn = "Files.Update"
	if len(fds) == 0 {
		return 0, argErr(fn, "len(fds)", "= 0")
	}
	if uint64(first)+uint64(len(fds)) > uint64(f.n) {
		return 0, argErr(fn, "first", equ(uint64(first))+" + len(fds) = "+itoa(len(fds))+" runs past the table of "+utoa(uint64(f.n))+" slots")
	}
	if tags != nil && len(tags) != len(fds) {
		return 0, argErr(fn, "len(tags)", eq(len(tags))+" differs from len(fds) = "+itoa(len(fds)))
	}
	fds32, err := toFds32(fn, fds, true)
	if err != nil {
		return 0, err
	}
	var p runtime.Pinner
	defer p.Unpin()
	up := sys.RsrcUpdate2{Offset: uint32(first), Data: addrOf(&p, fds32), Tags: addrOf(&p, tags), Nr: uint32(len(fds))}
	return register(f.t, sys.RegisterFilesUpdate2, &up, uint32(sys.SizeOf[sys.RsrcUpdate2]()))
}

// SetAllocRange restricts the slots the kernel picks for direct descriptors
// (sqe.AllocSlot targets) to [first, first+n) (IORING_REGISTER_FILE_ALLOC_RANGE,
// Linux 6.0).
func (f *Files) SetAllocRange(first sqe.Slot, n uint32) error {
	if uint64(first)+uint64(n) > uint64(f.n) {
		return argErr("Files.SetAllocRange", "first", equ(uint64(first))+" + n = "+utoa(uint64(n))+" runs past the table of "+utoa(uint64(f.n))+" slots")
	}
	r := sys.FileIndexRange{Off: uint32(first), Len: n}
	_, err := register(f.t, sys.RegisterFileAllocRange, &r, 0)
	return err
}

// Unregister drops the whole table (IORING_UNREGISTER_FILES). Requests in
// flight keep their files until they complete; tagged slots post their tag
// CQEs then (Linux 6.13+; before, none). Before 6.13 the kernel's call
// waits until every request using the ring's registered files or buffers
// has completed.
func (f *Files) Unregister() error {
	if f.n == 0 {
		return argErr("Files.Unregister", "table", "is already unregistered")
	}
	if _, err := registerNil(f.t, sys.UnregisterFiles, 0); err != nil {
		return err
	}
	f.n = 0
	return nil
}

// toFds32 converts fds to the kernel's __s32 array, accepting Empty (and
// Skip when skip is true).
func toFds32(fn string, fds []int, skip bool) ([]int32, error) {
	out := make([]int32, len(fds))
	for i, fd := range fds {
		switch {
		case fd == Empty, skip && fd == Skip:
		case fd < 0 || fd > 1<<31-1:
			what := " is not an fd or Empty"
			if skip {
				what = " is not an fd, Empty or Skip"
			}
			return nil, argErr(fn, "fds["+itoa(i)+"]", eq(fd)+what)
		}
		out[i] = int32(fd)
	}
	return out, nil
}
