//go:build linux

package task

import (
	"time"

	"golang.org/x/sys/unix"

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

func (o *Op) fill(s *sys.SQE, sl *opSlot) error {
	if o.raw != nil {
		ud := s.UserData
		o.raw(s)
		s.UserData = ud
		return nil
	}
	if err := checkLen(o.name, len(o.buf)); err != nil {
		return err
	}
	s.Opcode, s.Fd, s.OpFlags = o.code, int32(o.fd), o.flag
	switch o.code {
	case sys.OpRead, sys.OpWrite:
		s.Addr, s.Len, s.Off = sys.SliceAddr(o.buf), uint32(len(o.buf)), uint64(o.off)
		sl.buf = o.buf
		sl.pinBytes(o.buf)
	case sys.OpTimeout:
		sl.ts = sys.Timespec{Sec: int64(o.d / time.Second), Nsec: int64(o.d % time.Second)}
		s.Addr, s.Len = sys.PtrAddr(&sl.ts), 1
	}
	return nil
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
		return nil, &OpError{"link", -1, err}
	}
	for i := range ops {
		if err := checkLen(ops[i].name, len(ops[i].buf)); err != nil {
			return nil, err
		}
	}
	ex := t.ex
	if n > ex.ring.SQEntries() {
		return nil, &ArgError{"Link", "len(ops)", "exceeds the SQ size"}
	}
	res := make([]Result, n)
	slots := make([]*opSlot, n)
	for i := range ops {
		need := uint32(1)
		if i == 0 {
			need = n // the chain must be contiguous in one submission
		}
		s, sl, err := t.sqe(need)
		if err != nil {
			return nil, &OpError{"link", -1, err}
		}
		_ = ops[i].fill(s, sl)
		if i < len(ops)-1 {
			s.Flags |= sys.SQEIOLink
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
