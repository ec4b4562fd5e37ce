//go:build linux

package reg

import (
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// LegacyPool is a group of provided buffers for kernels without buffer
// rings (IORING_OP_PROVIDE_BUFFERS, Linux 5.7): buffers are handed to the
// kernel by SQEs rather than through shared memory. It tracks ids the same
// way BufPool does. The buffers live off the Go heap; Close unmaps them
// once no id is out, so call it only once no request can select from the
// group (after a RemoveAll SQE completed, or the ring is closed).
//
// The SQEs are built with sqe.ProvideBuffers and sqe.RemoveBuffers, which
// write every field: set UserData after the call.
//
// A LegacyPool is not safe for concurrent use.
type LegacyPool struct {
	group  uint16
	tr     tracker
	closed bool
}

// NewLegacyPool maps cfg.Count buffers of cfg.Size bytes for cfg.Group.
// cfg.UserMemory and cfg.Incremental do not apply. Nothing is provided
// until a ProvideAll SQE completes.
func NewLegacyPool(cfg PoolConfig) (*LegacyPool, error) {
	tr, err := newTracker("NewLegacyPool", cfg, false)
	if err != nil {
		return nil, err
	}
	return &LegacyPool{group: cfg.Group, tr: tr}, nil
}

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
