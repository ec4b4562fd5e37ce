package uring

import "runtime"

// Pins keeps the memory of in-flight requests pinned and reachable until
// their CQEs, keyed by user_data: Pin what an SQE points at when preparing
// it, Release when its last CQE arrives. It is the raw layer's helper for
// the rule in the sqe package ("the kernel holds this memory until the
// CQE"); the task layer does the same internally. A Pins is owned by the
// goroutine that owns the Ring; the zero value is ready to use.
type Pins struct {
	byUserData map[uint64]*runtime.Pinner
	spare      []*runtime.Pinner
}

// Pin pins ptr (a pointer, or a slice's first element's pointer, e.g.
// &buf[0]) for the request tagged userData.
func (p *Pins) Pin(userData uint64, ptr any) {
	if p.byUserData == nil {
		p.byUserData = make(map[uint64]*runtime.Pinner)
	}
	pn := p.byUserData[userData]
	if pn == nil {
		if n := len(p.spare); n > 0 {
			pn, p.spare = p.spare[n-1], p.spare[:n-1]
		} else {
			pn = new(runtime.Pinner)
		}
		p.byUserData[userData] = pn
	}
	pn.Pin(ptr)
}

// PinBytes pins the backing array of b (nothing for an empty b).
func (p *Pins) PinBytes(userData uint64, b []byte) {
	if len(b) > 0 {
		p.Pin(userData, &b[0])
	}
}

// Release unpins everything pinned for userData; call it on the request's
// last CQE (for multishot requests the one without F_MORE, for zero-copy
// sends the F_NOTIF one).
func (p *Pins) Release(userData uint64) {
	pn := p.byUserData[userData]
	if pn == nil {
		return
	}
	pn.Unpin()
	delete(p.byUserData, userData)
	p.spare = append(p.spare, pn)
}

// Len returns how many requests hold pins.
func (p *Pins) Len() int { return len(p.byUserData) }
