//go:build linux

package poll

import "github.com/pure-uring/uring/sys"

// Handler receives the CQEs of one operation, on the loop thread. c is
// valid only during the call. A multishot operation's handler gets every
// CQE; its slot is freed (before the call) by the CQE without F_MORE.
type Handler interface {
	Handle(c *sys.CQE)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(c *sys.CQE)

// Handle calls f(c).
func (f HandlerFunc) Handle(c *sys.CQE) { f(c) }

// Token identifies an operation in flight: it is the user_data of its SQE.
type Token uint64

// user_data layout: slot index in bits 0..31, generation in 32..62; bit 63
// marks the loop's own SQEs, which no slot can produce.
const (
	internalBit = uint64(1) << 63
	genMask     = 1<<31 - 1 // odd + 1 stays even across the wrap

	udWake   = internalBit | 1 // MSG_RING wakeup
	udPipe   = internalBit | 2 // read armed on the wakeup pipe
	udCancel = internalBit | 3 // ASYNC_CANCEL issued by the loop
	udIgnore = internalBit | 4 // an SQE turned into a NOP after its prep failed
)

// slot is one operation in flight: an Op (Start) or a Handler (Prep, Do,
// Go), its generation, and the free-list link. Two fields rather than one
// Handler so that Start stores its Op without an interface conversion.
type slot struct {
	op   Op
	h    Handler
	gen  uint32 // odd while the slot is in flight, even while free
	next uint32 // next free slot (free slots only)
}

// noSlot ends the free list.
const noSlot = ^uint32(0)

func token(idx, gen uint32) Token { return Token(uint64(gen)<<32 | uint64(idx)) }

// take pops a free slot (the table grows, the only allocation, amortised,
// when every slot is in use) and marks it in flight: its generation turns
// odd, so a token is never 0 and a free slot matches no token.
func (l *Loop) take() (uint32, *slot) {
	idx := l.freeHead
	if idx == noSlot {
		l.grow()
		idx = l.freeHead
	}
	s := &l.slots[idx]
	l.freeHead = s.next
	s.gen = (s.gen + 1) & genMask
	l.inflight++
	return idx, s
}

// acquire takes a slot for h and returns its token.
func (l *Loop) acquire(h Handler) Token {
	idx, s := l.take()
	s.h = h
	return token(idx, s.gen)
}

// release frees slot idx: its generation turns even, so a late CQE
// carrying the old token is recognised as stale.
func (l *Loop) release(idx uint32, s *slot) {
	s.op, s.h = nil, nil
	s.gen = (s.gen + 1) & genMask
	s.next = l.freeHead
	l.freeHead = idx
	l.inflight--
}

func (l *Loop) grow() {
	old := len(l.slots)
	n := max(old*2, 16)
	slots := make([]slot, n)
	copy(slots, l.slots)
	l.slots = slots
	for i := n - 1; i >= old; i-- {
		slots[i].next = l.freeHead
		l.freeHead = uint32(i)
	}
}

// lookup returns the slot a token names while that operation is in
// flight, or nil (stale or internal).
func (l *Loop) lookup(t Token) *slot {
	u := uint64(t)
	idx := uint32(u)
	if u&internalBit != 0 || idx >= uint32(len(l.slots)) {
		return nil
	}
	s := &l.slots[idx]
	if g := uint32(u >> 32); s.gen != g || g&1 == 0 {
		return nil
	}
	return s
}

// dispatch delivers each CQE to its handler, or counts it as stale, or
// handles the loop's own. A handler may Start operations, which may grow
// the slot table: l.slots is read afresh for every CQE.
func (l *Loop) dispatch(cqes []sys.CQE) {
	for i := range cqes {
		c := &cqes[i]
		u := c.UserData
		idx := uint32(u)
		if u&internalBit != 0 || idx >= uint32(len(l.slots)) {
			l.other(c)
			continue
		}
		s := &l.slots[idx]
		if g := uint32(u >> 32); s.gen != g || g&1 == 0 { // in flight: odd, and the token's
			l.st.Stale++
			continue
		}
		op, h := s.op, s.h
		if c.Flags&sys.CQEFMore == 0 {
			l.release(idx, s)
		}
		l.st.Completed++
		if op != nil {
			op.Handle(c)
		} else {
			h.Handle(c)
		}
	}
}

// other handles a CQE that names no slot: the loop's own, or stale.
func (l *Loop) other(c *sys.CQE) {
	if c.UserData&internalBit == 0 {
		l.st.Stale++
		return
	}
	l.internal(c)
}

func (l *Loop) internal(c *sys.CQE) {
	switch c.UserData {
	case udWake:
		l.st.WakeCQEs++
	case udPipe:
		l.pipeArmed = false
		l.st.WakeCQEs++
		if !l.closing {
			l.armPipe()
		}
	case udCancel:
		if c.Res == -int32(einval) && l.closing {
			l.cancelEach = true // no CANCEL_ANY (before 5.19): cancel slot by slot
		}
	}
	// udIgnore and the Ring's own wakeup from Close need nothing.
}
