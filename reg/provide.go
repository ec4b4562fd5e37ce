//go:build linux

package reg

import (
	"errors"
	"syscall"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// The PoolProvideBuffers side of BufPool: the buffers go to the kernel by
// IORING_OP_PROVIDE_BUFFERS SQEs (Linux 5.7) that the pool queues on its
// ring with user_data InternalUserData and submits at once. Without
// IOSQE_ASYNC, PROVIDE_BUFFERS and REMOVE_BUFFERS run inline while the
// kernel takes the SQE (io_submit_sqes holds uring_lock), so on a ring
// without SQPOLL they have happened when the submit returns; on every
// ring the kernel takes SQEs in order, so a request queued after them
// sees their effect.

// initProvide provides every buffer with one SQE.
func (p *BufPool) initProvide(fn string, sq sqTarget) error {
	p.sq = sq
	// Before 5.19 (no buffer rings) a buffer-select length of 0 means 0.
	p.lenZero = errors.Is(probeOff(func() error { return supports(uring.CapBufRing) }), uring.ErrUnsupported)
	if err := probeOff(func() error { return supports(uring.CapRecvSendBundle) }); errors.Is(err, uring.ErrUnsupported) {
		p.bundleErr = err // TakeBundle's answer
	}
	return p.submitSQE(fn, func(s *sys.SQE) error {
		return sqe.ProvideBuffers(s, p.tr.m.mem, uint32(p.tr.size), p.tr.count, p.group, 0)
	})
}

// provide gives buffer bid back with one SQE.
func (p *BufPool) provide(fn string, bid uint16) error {
	return p.submitSQE(fn, func(s *sys.SQE) error {
		return sqe.ProvideBuffers(s, p.tr.buf(bid), uint32(p.tr.size), 1, p.group, bid)
	})
}

// remove takes every buffer of the group the kernel holds back. A closed
// ring holds none.
func (p *BufPool) remove(fn string) error {
	// Up to 65535 (USHRT_MAX, the most every kernel takes): more than
	// the pool has, so nothing stays behind in the kernel.
	err := p.submitSQE(fn, func(s *sys.SQE) error { return sqe.RemoveBuffers(s, 65535, p.group) })
	if errors.Is(err, uring.ErrClosed) {
		return nil
	}
	return err
}

// submitSQE queues one SQE that fill prepares, with user_data
// InternalUserData, and submits. A full SQ is submitted once to make room;
// when it stays full (or the ring is closed) nothing is queued and the
// error says why. Once the SQE is queued a failing submit leaves it in the
// SQ for the ring's next submit (ahead of every SQE queued later): EBUSY
// and EAGAIN (the kernel's back-pressure) are not errors then, others are
// returned.
func (p *BufPool) submitSQE(fn string, fill func(*sys.SQE) error) error {
	s, err := p.sq.GetSQE()
	if errors.Is(err, uring.ErrSQFull) {
		_, _ = p.sq.Submit() // make room; if it could not, GetSQE says so
		s, err = p.sq.GetSQE()
	}
	if err != nil {
		return &PoolError{Func: fn, Err: err}
	}
	if err := fill(s); err != nil {
		sqe.Nop(s) // the slot is taken: let it pass as a NOP
		s.UserData = InternalUserData
		return err
	}
	s.UserData = InternalUserData
	if _, err := p.sq.Submit(); err != nil && !errors.Is(err, syscall.EBUSY) && !errors.Is(err, syscall.EAGAIN) {
		return &PoolError{Func: fn, Err: err, Queued: true}
	}
	return nil
}

// PoolError is a BufPool call that needed an SQE on its ring and did not
// get it submitted (PoolProvideBuffers only).
type PoolError struct {
	Func string
	Err  error // uring.ErrSQFull, uring.ErrClosed, or the submit's error
	// Queued: the SQE is in the SQ and goes in with the ring's next
	// submit (the call's effect, such as a Put's id being back, stands).
	Queued bool
}

func (e *PoolError) Error() string {
	s := "reg: " + e.Func + ": "
	if e.Queued {
		return s + "submitting the PROVIDE_BUFFERS/REMOVE_BUFFERS SQE: " + e.Err.Error() + " (it stays queued for the ring's next submit)"
	}
	return s + "no SQE for PROVIDE_BUFFERS/REMOVE_BUFFERS: " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *PoolError) Unwrap() error { return e.Err }

// queued reports whether err is a *PoolError whose SQE is queued anyway.
func queued(err error) bool {
	var pe *PoolError
	return errors.As(err, &pe) && pe.Queued
}

// LegacyPool is a group of provided buffers for kernels without buffer
// rings (IORING_OP_PROVIDE_BUFFERS, Linux 5.7): buffers are handed to the
// kernel by SQEs rather than through shared memory, SQEs the caller gets,
// submits and reaps itself. It tracks ids the same way BufPool does.
// (BufPool uses the same mechanism by itself where the kernel has no
// buffer rings, queueing the SQEs on its ring: prefer it.) Build the
// requests that select from the group with Select, which writes the
// buffer size as the length where the kernel needs it (before 5.19). The buffers live off the Go heap; Close unmaps them
// once no id is out, so call it only once no request can select from the
// group (after a RemoveAll SQE completed, or the ring is closed).
//
// The SQEs are built with sqe.ProvideBuffers and sqe.RemoveBuffers, which
// write every field: set UserData after the call.
//
// A LegacyPool is not safe for concurrent use.
type LegacyPool struct {
	group   uint16
	tr      tracker
	lenZero bool // see BufPool.Select
	closed  bool
}

// NewLegacyPool maps cfg.Count buffers of cfg.Size bytes for cfg.Group.
// cfg.UserMemory and cfg.Incremental do not apply. Nothing is provided
// until a ProvideAll SQE completes.
func NewLegacyPool(cfg PoolConfig) (*LegacyPool, error) {
	tr, err := newTracker("NewLegacyPool", cfg, false)
	if err != nil {
		return nil, err
	}
	lenZero := errors.Is(probeOff(func() error { return supports(uring.CapBufRing) }), uring.ErrUnsupported)
	return &LegacyPool{group: cfg.Group, tr: tr, lenZero: lenZero}, nil
}

// Size returns the size of each buffer in bytes.
func (p *LegacyPool) Size() int { return p.tr.size }

// Select makes s take its buffer from the group, as BufPool.Select does:
// before Linux 5.19 a length of 0 reads 0 bytes, so there Select sets it to
// Size.
func (p *LegacyPool) Select(s *sys.SQE) { selectBuffer(s, p.group, p.tr.size, p.lenZero) }

// Group returns the buffer group id.
func (p *LegacyPool) Group() uint16 { return p.group }

// Out returns how many buffer ids are out.
func (p *LegacyPool) Out() int { return p.tr.nOut }

// ProvideAll fills s to provide every buffer (ids 0..Count-1). Its CQE's
// result is 0 on success.
func (p *LegacyPool) ProvideAll(s *sys.SQE) error {
	if p.closed {
		return argErr("LegacyPool.ProvideAll", "pool", "is closed")
	}
	return sqe.ProvideBuffers(s, p.tr.m.mem, uint32(p.tr.size), p.tr.count, p.group, 0)
}

// Take decodes a CQE's buffer and marks its id out; see BufPool.Take.
func (p *LegacyPool) Take(res int32, flags sys.CQEFlags) (bid uint16, data []byte, err error) {
	return p.tr.take("LegacyPool.Take", res, flags)
}

// Put marks bid back in and fills s to provide it to the kernel again. An
// id that is not out is an error; s is then left untouched. After Close,
// Put only releases the id (s may be nil and is left untouched) and the
// last one unmaps the buffers.
func (p *LegacyPool) Put(bid uint16, s *sys.SQE) error {
	if err := p.tr.give("LegacyPool.Put", bid); err != nil {
		return err
	}
	if p.closed {
		if p.tr.nOut == 0 {
			p.tr.m.put()
		}
		return nil
	}
	return sqe.ProvideBuffers(s, p.tr.buf(bid), uint32(p.tr.size), 1, p.group, bid)
}

// RemoveAll fills s to remove up to every buffer of the group from the
// kernel (IORING_OP_REMOVE_BUFFERS). Its CQE's result is how many were
// removed.
func (p *LegacyPool) RemoveAll(s *sys.SQE) error {
	return sqe.RemoveBuffers(s, p.tr.count, p.group)
}

// Close unmaps the buffers now when no id is out, else with the last Put
// (see the type's comment for when to call it).
func (p *LegacyPool) Close() error {
	if p.closed {
		return argErr("LegacyPool.Close", "pool", "is already closed")
	}
	p.closed = true
	if p.tr.nOut == 0 {
		p.tr.m.put()
	}
	return nil
}

// Unmapped reports whether the buffers have been unmapped.
func (p *LegacyPool) Unmapped() bool { return p.closed && p.tr.nOut == 0 }
