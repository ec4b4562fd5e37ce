//go:build linux

package task

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// Op is one operation of a link chain (see T.Link).
type Op struct {
	name string
	code sys.Op
	fd   int
	buf  []byte
	off  int64
	n    uint32
	flag uint32
	d    time.Duration
	raw  func(*sys.SQE)
}

// NopOp is a NOP.
func NopOp() Op { return Op{name: "nop", code: sys.OpNop, fd: -1} }

// ReadOp reads into buf at off.
func ReadOp(fd int, buf []byte, off int64) Op {
	return Op{name: "read", code: sys.OpRead, fd: fd, buf: buf, off: off}
}

// WriteOp writes buf at off.
func WriteOp(fd int, buf []byte, off int64) Op {
	return Op{name: "write", code: sys.OpWrite, fd: fd, buf: buf, off: off}
}

// FsyncOp flushes fd.
func FsyncOp(fd int, flags uint32) Op {
	return Op{name: "fsync", code: sys.OpFsync, fd: fd, flag: flags}
}

// TimeoutOp completes after d (-ETIME is its success).
func TimeoutOp(d time.Duration) Op { return Op{name: "timeout", code: sys.OpTimeout, fd: -1, d: d} }

// SQEOp is any SQE prep fills; memory it points at is the caller's to keep.
func SQEOp(prep func(*sys.SQE)) Op { return Op{name: "await", raw: prep, fd: -1} }

// build fills s with the op's SQE (the builder of package sqe checks the
// arguments); what the kernel reads lives in ts, and in buf's pin.
func (o *Op) build(s *sys.SQE, ts *sys.Timespec) error {
	if o.raw != nil {
		o.raw(s)
		return nil
	}
	switch o.code {
	case sys.OpRead:
		return sqe.Read(s, o.fd, o.buf, o.off)
	case sys.OpWrite:
		return sqe.Write(s, o.fd, o.buf, o.off)
	case sys.OpFsync:
		return sqe.Fsync(s, o.fd, o.flag)
	case sys.OpTimeout:
		return sqe.Timeout(s, ts, max(o.d, 0), 0, 0)
	default:
		sqe.Nop(s)
		return nil
	}
}

// Link submits ops as one IOSQE_IO_LINK chain: each starts only after the
// previous one succeeded; after a failure the rest complete with
// -ECANCELED. It returns every op's result and the first error.
func (t *T) Link(ops ...Op) ([]Result, error) {
	n := uint32(len(ops))
	if n == 0 {
		return nil, nil
	}
	if err := t.check(); err != nil {
		return nil, opError("link", -1, err)
	}
	// Check every op before the first SQE is taken: a chain goes in whole.
	var scratch sys.SQE
	var ts sys.Timespec
	for i := range ops {
		if ops[i].raw == nil {
			if err := ops[i].build(&scratch, &ts); err != nil {
				return nil, argErr("Link", err)
			}
		}
	}
	ex := t.ex
	if ex.fb != nil {
		return nil, unsupportedOp("link", "a link chain")
	}
	if n > ex.ring.SQEntries() {
		return nil, argError("Link", "len(ops)", "exceeds the SQ size")
	}
	res := make([]Result, n)
	slots := make([]*opSlot, n)
	for i := range ops {
		need := uint32(1)
		if i == 0 {
			need = n // the chain must be contiguous in one submission
		}
		sl := ex.allocSlot()
		if sl == nil {
			t.abandonChain(slots[:i])
			return nil, opError("link", -1, uring.ErrSQFull)
		}
		s, err := t.ringSQE(need)
		if err != nil {
			ex.freeSlot(sl)
			t.abandonChain(slots[:i])
			return nil, opError("link", -1, err)
		}
		o := &ops[i]
		_ = o.build(s, &sl.ts) // checked above
		s.UserData = sl.ud()
		if o.code == sys.OpRead || o.code == sys.OpWrite {
			sl.keepBytes(o.buf)
		}
		if i < len(ops)-1 {
			sqe.Link(s)
		}
		sl.t, sl.out = t, &res[i]
		slots[i] = sl
	}
	t.pending = int32(n)
	x := t.ext()
	x.chain = slots
	t.parkKind = parkOp
	t.park()
	t.parkKind = parkNone
	x.chain = nil
	for i, r := range res {
		if r.Res < 0 && !(ops[i].code == sys.OpTimeout && r.Res == -int32(unix.ETIME)) {
			return res, t.opErr(ops[i].name, ops[i].fd, r.Res, false)
		}
	}
	return res, nil
}

// abandonChain lets the slots of a chain that could not be completed go:
// their SQEs are already in the ring, linked, and complete (the unlinked
// last one runs, the rest follow it) with nobody waiting.
func (t *T) abandonChain(slots []*opSlot) {
	for _, sl := range slots {
		sl.t, sl.out = nil, nil
	}
}
