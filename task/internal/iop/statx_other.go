//go:build !linux

package iop

// StatBuf is the target of a Statx op; there is none off Linux.
type StatBuf struct{}
