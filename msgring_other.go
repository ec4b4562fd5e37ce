//go:build !linux

package uring

import "github.com/pure-uring/uring/sys"

// msgRing: no MSG_RING without io_uring.
func msgRing(msg *sys.SQE, fd int, userData uint64, res int32, msgFlags, cqeFlags uint32) error {
	return ErrUnsupported
}
