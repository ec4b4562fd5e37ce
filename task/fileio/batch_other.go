//go:build !linux

package fileio

// preadBatch leaves every op to ReadAt: no rings off Linux.
func (f *File) preadBatch(ops []ReadOp) bool { return false }
