//go:build linux

package reg

import (
	"os"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// The rest of IORING_REGISTER_QUERY (io_uring_register_query(3), liburing
// 2.15): each query asks the kernel, without a ring (fd -1), what one of
// its subsystems supports. QueryOpcodes (Linux 6.18) is in query.go; a
// kernel that lacks a query answers it, in the query's header, with
// EOPNOTSUPP, which these return as an *uring.UnsupportedError naming the
// release that added the query.

// QueryZcrx asks what the kernel's zero-copy receive takes: the
// registration and area flags it knows, how many ZCRX_CTRL operations, its
// ZCRX_FEATURE_* bits (7.0) and the refill ring header's size and alignment
// (IO_URING_QUERY_ZCRX, Linux 6.19).
func QueryZcrx() (sys.QueryZcrxInfo, error) {
	var q sys.QueryZcrxInfo
	return q, query(sys.QueryZcrx, "IO_URING_QUERY_ZCRX", "6.19", &q)
}

// QuerySCQ asks for the size and alignment of the header of the SQ and CQ
// rings (struct io_rings), for placing rings in memory of one's own
// (IO_URING_QUERY_SCQ, Linux 6.19).
func QuerySCQ() (sys.QuerySCQInfo, error) {
	var q sys.QuerySCQInfo
	return q, query(sys.QuerySCQ, "IO_URING_QUERY_SCQ", "6.19", &q)
}

// QueryZcrxEvent asks which zero-copy receive events the kernel posts and
// the size and alignment of its statistics block (IO_URING_QUERY_ZCRX_EVENT,
// Linux 7.2).
func QueryZcrxEvent() (sys.QueryZcrxEventInfo, error) {
	var q sys.QueryZcrxEventInfo
	return q, query(sys.QueryZcrxEvent, "IO_URING_QUERY_ZCRX_EVENT", "7.2", &q)
}

// query makes one query into *out. The kernel copies min(size, its own
// size) bytes, so a struct of any release works with any kernel.
func query[T any](op uint32, name, since string, out *T) error {
	var p runtime.Pinner
	p.Pin(out)
	h := sys.QueryHdr{QueryData: sys.PtrAddr(out), QueryOp: op, Size: uint32(sys.SizeOf[T]())}
	_, err := sys.Register(-1, sys.RegisterQuery, &h, 0)
	p.Unpin()
	if err != nil {
		return wrap(sys.RegisterQuery, err)
	}
	switch {
	case h.Result == -int32(unix.EOPNOTSUPP):
		return &uring.UnsupportedError{Feature: "query " + name, MinimumVersion: since,
			Kernel: uring.KernelRelease(), Reason: "the kernel does not know the query", Err: unix.EOPNOTSUPP}
	case h.Result < 0:
		// The call succeeded but this entry failed: the errno is in the header.
		return wrap(sys.RegisterQuery, os.NewSyscallError("io_uring_register", unix.Errno(-h.Result)))
	}
	return nil
}
