//go:build linux

package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
)

// RW prepares opcode op on fd with buf's address and length and offset
// off, every other field zero: io_uring_prep_rw(3), the base of liburing's
// helpers, for an opcode this package has no builder for (one a newer
// kernel adds) or a form no builder writes. The builders are the checked
// way to prepare the opcodes they cover. fd may be -1 (no file); off may
// be CurrentPos (-1). What the kernel holds is op's business: buf at least
// until the CQE.
func RW(s *sys.SQE, op sys.Op, fd int, buf []byte, off int64) error {
	if fd < -1 || fd > maxInt32 {
		return argErr("RW", "fd", "= "+strconv.Itoa(fd)+" is neither -1 nor a valid fd")
	}
	if err := firstErr(checkLen32("RW", "len(buf)", len(buf)), checkOff("RW", "off", off)); err != nil {
		return err
	}
	prep(s, op, fd, addrOf(buf), uint32(len(buf)), uint64(off))
	return nil
}
