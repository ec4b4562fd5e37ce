package fileio

import (
	"errors"
	"io"
	"os"
)

// ReadOp is one read of a batch: Buf is filled from Off; N and Err are
// its result, as ReadAt's.
type ReadOp struct {
	Buf []byte
	Off int64
	N   int
	Err error
}

// ReadAtBatch runs the reads of ops together, each as ReadAt would: on a
// regular file through a ring, submitted in one io_uring_enter and
// awaited together (a short read is completed by a ReadAt of the rest);
// otherwise one after another. Each op's result is in its N and Err. The
// error is for the batch as a whole: f is closed (then no op ran).
func (f *File) ReadAtBatch(ops []ReadOp) error {
	if f == nil {
		return os.ErrInvalid
	}
	if f.rings == nil || len(ops) == 1 {
		for i := range ops {
			ops[i].N, ops[i].Err = f.ReadAt(ops[i].Buf, ops[i].Off)
			if errors.Is(ops[i].Err, os.ErrClosed) {
				return ops[i].Err // closed: as on the ring path, no op ran
			}
		}
		return nil
	}
	if !f.g.Acquire() {
		return f.closedErr("read")
	}
	defer f.g.Release()
	if !f.preadBatch(ops) {
		for i := range ops {
			ops[i].N, ops[i].Err = f.readAtHeld(ops[i].Buf, ops[i].Off)
		}
		return nil
	}
	for i := range ops {
		op := &ops[i]
		if op.Err != nil || op.N == len(op.Buf) {
			continue
		}
		if op.N == 0 && len(op.Buf) > 0 {
			op.Err = io.EOF
			continue
		}
		m, err := f.readAtHeld(op.Buf[op.N:], op.Off+int64(op.N))
		op.N += m
		op.Err = err
	}
	return nil
}

// checkReadOp is ReadAt's check of one op's offset.
func (f *File) checkReadOp(op *ReadOp) error {
	if op.Off < 0 {
		return f.negativeOffset("readat")
	}
	return nil
}
