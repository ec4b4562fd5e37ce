//go:build linux

package sqe

import "github.com/pure-uring/uring/sys"

// prep is the one base helper: it writes every field of s, so nothing a
// previous use left behind survives; builders then set their op's fields.
func prep(s *sys.SQE, op sys.Op, fd int, addr uint64, n uint32, off uint64) {
	*s = sys.SQE{Opcode: op, Fd: int32(fd), Addr: addr, Len: n, Off: off}
}

// CurrentPos as a file offset means "the file position" (read(2)/write(2)
// instead of pread(2)/pwrite(2)); also the "no offset" of a pipe in Splice.
const CurrentPos int64 = -1
