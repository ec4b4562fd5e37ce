//go:build linux

package fileio

import (
	"os"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// preadBatch submits one read per op (up to maxRW bytes each) through one
// ring and sets each op's N (bytes read) or Err; false when no ring took
// them (the rings are closed or broken).
func (f *File) preadBatch(ops []ReadOp) bool {
	res := make([]int32, len(ops))
	valid := 0
	for i := range ops {
		ops[i].N, ops[i].Err = 0, f.checkReadOp(&ops[i])
		if ops[i].Err == nil {
			valid++
		}
	}
	if valid > 0 {
		fd := f.fd
		ok := f.rings.doBatch(res, func(i int, q *sys.SQE) error {
			op := &ops[i]
			if op.Err != nil || len(op.Buf) == 0 {
				sqe.Nop(q) // keeps the indices: its res (0) is ignored
				return nil
			}
			return sqe.Read(q, fd, op.Buf[:min(len(op.Buf), maxRW)], op.Off)
		}, func(i int) []byte { return ops[i].Buf })
		if ok {
			for i := range ops {
				if ops[i].Err != nil || len(ops[i].Buf) == 0 {
					continue
				}
				n, err := result(res[i])
				ops[i].N = n
				if err != nil {
					ops[i].Err = &os.PathError{Op: "read", Path: f.of.Name(), Err: err}
				}
			}
			return true
		}
		// The rings closed, or their enter fails for good: ReadAt's plain calls.
	}
	return valid == 0
}
