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
	genMask     = 1<<31 - 1

	udWake   = internalBit | 1 // MSG_RING wakeup
	udPipe   = internalBit | 2 // read armed on the wakeup pipe
	udCancel = internalBit | 3 // ASYNC_CANCEL issued by the loop
	udIgnore = internalBit | 4 // an SQE turned into a NOP after its prep failed
)

type slot struct {
	h   Handler
	gen uint32 // 1..2^31-1; bumped when the slot is freed
}

func token(idx, gen uint32) Token { return Token(uint64(gen)<<32 | uint64(idx)) }

// acquire takes a free slot for h and returns its token; the table grows
// (the only allocation, amortised) when every slot is in use.
func (l *Loop) acquire(h Handler) Token {
	if len(l.free) == 0 {
		l.grow()
	}
	idx := l.free[len(l.free)-1]
	l.free = l.free[:len(l.free)-1]
	s := &l.slots[idx]
	s.h = h
	l.inflight++
	return token(idx, s.gen)
}

// release frees slot idx and bumps its generation so that a late CQE
// carrying the old token is recognised as stale.
func (l *Loop) release(idx uint32) {
	s := &l.slots[idx]
	s.h = nil
	s.gen = (s.gen + 1) & genMask
	if s.gen == 0 {
		s.gen = 1
	}
	l.free = append(l.free, idx)
	l.inflight--
}

func (l *Loop) grow() {
	old := len(l.slots)
	n := max(old*2, 16)
	slots := make([]slot, n)
	copy(slots, l.slots)
	l.slots = slots
	if cap(l.free) < n {
		free := make([]uint32, len(l.free), n)
		copy(free, l.free)
		l.free = free
	}
	for i := n - 1; i >= old; i-- {
		l.slots[i].gen = 1
		l.free = append(l.free, uint32(i))
	}
}

// lookup returns the slot a token names while that operation is in
// flight, or nil (stale or internal).
func (l *Loop) lookup(t Token) *slot {
	u := uint64(t)
	if u&internalBit != 0 {
		return nil
	}
	idx := uint32(u)
	if idx >= uint32(len(l.slots)) {
		return nil
	}
	s := &l.slots[idx]
	if s.h == nil || s.gen != uint32(u>>32) {
		return nil
	}
	return s
}

// dispatch delivers one CQE to its handler, or counts it as stale, or
// handles the loop's own.
func (l *Loop) dispatch(c *sys.CQE) {
	u := c.UserData
	if u&internalBit != 0 {
		l.internal(c)
		return
	}
	s := l.lookup(Token(u))
	if s == nil {
		l.st.Stale++
		return
	}
	h := s.h
	if c.Flags&sys.CQEFMore == 0 {
		l.release(uint32(u))
	}
	l.st.Completed++
	h.Handle(c)
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
