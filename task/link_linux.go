package task

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// Op is one operation of a link chain (see T.Link).
type Op struct {
	code iop.Code
	fd   int
	buf  []byte
	off  int64
	flag uint32
	d    time.Duration
	raw  func(*sys.SQE)
}

// NopOp is a NOP.
func NopOp() Op { return Op{code: iop.Nop, fd: -1} }

// ReadOp reads into buf at off.
func ReadOp(fd int, buf []byte, off int64) Op {
	return Op{code: iop.Read, fd: fd, buf: buf, off: off}
}

// WriteOp writes buf at off.
func WriteOp(fd int, buf []byte, off int64) Op {
	return Op{code: iop.Write, fd: fd, buf: buf, off: off}
}

// FsyncOp flushes fd.
func FsyncOp(fd int, flags uint32) Op { return Op{code: iop.Fsync, fd: fd, flag: flags} }

// TimeoutOp completes after d (-ETIME is its success): a delay before the
// ops linked after it. Before Linux 5.16 (no IORING_TIMEOUT_ETIME_SUCCESS,
// uring.CapTimeoutETimeSuccess) the kernel fails the link at its expiry,
// and the ops after it complete with -ECANCELED.
func TimeoutOp(d time.Duration) Op { return Op{code: iop.Sleep, fd: -1, d: d} }

// SQEOp is any SQE prep fills; memory it points at is the caller's to keep.
func SQEOp(prep func(*sys.SQE)) Op { return Op{code: iop.Raw, raw: prep, fd: -1} }

// Link submits ops as one IOSQE_IO_LINK chain: each starts only after the
// previous one succeeded; after a failure the rest complete with
// -ECANCELED. It returns every op's result and the first error. On the
// fallback backend it returns an error wrapping uring.ErrUnsupported.
func (t *T) Link(ops ...Op) ([]Result, error) {
	n := len(ops)
	if n == 0 {
		return nil, nil
	}
	ex := t.ex
	links := ex.links[:0]
	for i := range ops {
		o := &ops[i]
		links = append(links, iop.Op{Code: o.code, Fd: o.fd, Buf: o.buf, Off: o.off, Flags: int(o.flag), Dur: o.d, Prep: o.raw})
	}
	ex.links = links
	res := make([]iop.Result, n)
	op := ex.prep(iop.Link, -1)
	op.Links, op.Results = links, res
	_, err := t.await()
	clear(links) // the executor keeps the array, not the buffers
	if err != nil {
		return nil, err
	}
	out := make([]Result, n)
	for i, r := range res {
		out[i] = Result(r)
	}
	for i, r := range out {
		if r.Res < 0 && !(ops[i].code == iop.Sleep && r.Res == -int32(unix.ETIME)) {
			return out, t.opErr(ops[i].code.Name(), ops[i].fd, r.Res, false)
		}
	}
	return out, nil
}
