package iop

import "golang.org/x/sys/unix"

// StatBuf is the target of a Statx op.
type StatBuf = unix.Statx_t
