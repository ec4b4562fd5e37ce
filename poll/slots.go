//go:build linux

package poll

import (
	"github.com/pure-uring/uring/internal/udata"
	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// Handler receives the CQEs of one operation, on the owner's thread. c is
// valid only during the call. A multishot operation's handler gets every
// CQE; its slot is freed (before the call) by the CQE without F_MORE.
type Handler interface {
	Handle(c *sys.CQE)
}

// BatchHandler receives the CQEs of the SQEs one PrepBatch prepared, on
// the owner's thread: i is the SQE's index in the batch. c is valid only
// during the call. The batch's slot is freed (before the call) by the
// last final CQE (one without F_MORE) of the batch.
type BatchHandler interface {
	HandleBatch(i int, c *sys.CQE)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(c *sys.CQE)

// Handle calls f(c).
func (f HandlerFunc) Handle(c *sys.CQE) { f(c) }

// Token identifies an operation in flight: it is the user_data of its SQE.
type Token uint64

// user_data layout (a Core's slots and a Shared's ops): slot index in bits
// 0..31, the SQE's index in a batch (PrepBatch; 0 otherwise) in 32..39,
// the slot's generation in 40..62;
// bit 63 marks the Core's own SQEs (and every SQE no slot waits for),
// which no slot can produce.
const (
	internalBit = udata.Reserved
	slotGenMask = 1<<23 - 1 // odd + 1 stays even across the wrap
	subShift    = 32
	genShift    = 40 // subShift + 8: MaxBatch indexes

	udWakePoll  = udata.WakePoll
	udCancel    = udata.Cancel
	udCancelAll = udata.CancelAll
	// IgnoreUserData is the user_data of an SQE whose CQE nobody waits for
	// (an internal close, a link timeout): the Core drops its CQE. Every
	// user_data with bit 63 set is the library's own (reg's
	// InternalUserData among them) and never reaches a handler.
	IgnoreUserData = udata.Ignore
)

// slot is one operation in flight: an Op (StartOp), a Handler (Acquire)
// or a batch (PrepBatch), its generation, and the free-list link. Separate
// fields rather than one Handler so that StartOp stores its Op without an
// interface conversion.
type slot struct {
	op      Op
	h       Handler
	bh      BatchHandler // a batch's: pending counts its final CQEs to come
	kept    Handler      // the owner's record for this slot (AcquireKept), kept across uses
	gen     uint32       // odd while the slot is in flight, even while free
	next    uint32       // next free slot (free slots only)
	pending uint32
	size    uint16 // a batch's SQE count (for cancelling each)
}

// holds reports whether u's batch index is one of the slot's SQEs: 0 for
// one operation, below the batch's size for a batch.
func (s *slot) holds(u uint64) bool {
	i := uint8(u >> subShift)
	return i == 0 || uint16(i) < s.size
}

// MaxBatch is the most SQEs one PrepBatch prepares (the batch index has
// 8 bits of user_data).
const MaxBatch = 256

// noSlot ends the free list.
const noSlot = ^uint32(0)

func token(idx, gen uint32) Token { return Token(uint64(gen)<<genShift | uint64(idx)) }

// At is the token of SQE i of the batch t names (PrepBatch): its
// user_data, which Cancel takes. For a token of one operation, At(0) is
// the token itself. For i outside 0..MaxBatch-1 it is 0, which names no
// operation.
func (t Token) At(i int) Token {
	if i < 0 || i >= MaxBatch {
		return 0
	}
	return t&^((MaxBatch-1)<<subShift) | Token(i)<<subShift
}

// take pops a free slot (the table grows by one append when every slot is
// in use: the only allocation, amortised, and no call, so that take
// inlines) and marks it in flight: its generation turns
// odd, so a token is never 0 and a free slot matches no token.
func (c *Core) take() (uint32, *slot) {
	idx := c.freeHead
	if idx == noSlot {
		idx = uint32(len(c.slots))
		c.slots = append(c.slots, slot{next: noSlot}) // the free list stays empty
	}
	s := &c.slots[idx]
	c.freeHead = s.next
	s.gen = (s.gen + 1) & slotGenMask
	c.inflight++
	return idx, s
}

// Acquire takes a slot for h and returns its token: the user_data of the
// SQE whose CQEs h is to get (owner thread).
func (c *Core) Acquire(h Handler) Token {
	idx, s := c.take()
	s.h = h
	return token(idx, s.gen)
}

// AcquireOp is Acquire for an Op, without converting it to a Handler.
func (c *Core) AcquireOp(op Op) Token {
	idx, s := c.take()
	s.op = op
	return token(idx, s.gen)
}

// AcquireKept takes a slot and returns its token and the handler kept on
// it by Keep (nil the first time): an owner that keeps one record per
// slot (task's op records) reuses them with the slots and needs no free
// list of its own. The kept handler gets the slot's CQEs.
func (c *Core) AcquireKept() (Token, Handler) {
	idx, s := c.take()
	s.h = s.kept
	return token(idx, s.gen), s.kept
}

// Keep attaches h to the slot of t (in flight) for good: it gets the
// slot's CQEs now, and AcquireKept returns it with the slot from now on.
func (c *Core) Keep(t Token, h Handler) {
	if s := c.lookup(t); s != nil {
		s.kept, s.h = h, h
	}
}

// Release frees the slot of t without a CQE: for a token whose SQE never
// reached the kernel (owner thread). A token no longer in flight is ignored.
func (c *Core) Release(t Token) {
	if s := c.lookup(t); s != nil {
		c.release(uint32(t), s)
	}
}

// release frees slot idx: its generation turns even, so a late CQE
// carrying the old token is recognised as stale.
func (c *Core) release(idx uint32, s *slot) {
	s.op, s.h, s.bh = nil, nil, nil
	s.size = 0
	s.gen = (s.gen + 1) & slotGenMask
	s.next = c.freeHead
	c.freeHead = idx
	c.inflight--
}

// reserve makes the slot table at least n slots long (WithSlots), the new
// slots free. Past that, take appends a slot when none is free.
func (c *Core) reserve(n int) {
	old := len(c.slots)
	if n <= old {
		return
	}
	c.slots = append(c.slots, make([]slot, n-old)...)
	for i := n - 1; i >= old; i-- {
		c.slots[i].next = c.freeHead
		c.freeHead = uint32(i)
	}
}

// InFlight returns how many operations hold a slot (owner thread).
func (c *Core) InFlight() int { return c.inflight }

// Slots returns the slot table's size (owner thread).
func (c *Core) Slots() int { return len(c.slots) }

// InFlightToken reports whether t names an operation still in flight.
func (c *Core) InFlightToken(t Token) bool { return c.lookup(t) != nil }

// lookup returns the slot a token names while that operation is in
// flight, or nil (stale or internal).
func (c *Core) lookup(t Token) *slot {
	u := uint64(t)
	idx := uint32(u)
	if u&internalBit != 0 || idx >= uint32(len(c.slots)) {
		return nil
	}
	s := &c.slots[idx]
	if g := uint32(u >> genShift); s.gen != g || g&1 == 0 || !s.holds(u) {
		return nil
	}
	return s
}

// HasCQEs reports whether a reap would find CQEs or has to enter to flush
// them: the CQ is not empty, or the kernel flags CQ overflow or deferred
// completion work (owner thread).
func (c *Core) HasCQEs() bool {
	if c.ring.CQReady() != 0 {
		return true
	}
	f := c.ring.SQFlags()
	return f&sys.SQCQOverflow != 0 || (!c.iopoll && f&sys.SQTaskrun != 0)
}

// Reap dispatches the ready CQEs (in place where they are 16 bytes, else
// copied out); with the CQ empty it enters to flush only when the kernel
// flags CQ overflow or deferred task work (on IOPOLL rings, only
// overflow). It returns how many CQEs it took (owner thread).
func (c *Core) Reap() int {
	if c.reaping || !c.HasCQEs() {
		// reaping: a handler's reap (one making room in a full SQ) would
		// advance the head under the batch being dispatched (or copy over
		// it); the CQEs wait for the reap that runs.
		return 0
	}
	c.reaping = true
	defer func() { c.reaping = false }() // a handler may panic (a Loop recovers)
	total := 0
	if c.inPlace {
		// 16-byte CQEs: dispatched where they lie and released together
		// (liburing's io_uring_for_each_cqe and io_uring_cq_advance); no
		// other reap runs meanwhile, so nothing advances the head under
		// the batch. At most one CQ's worth, so a stream of completions
		// cannot hold the owner here.
		for max := int(c.ring.CQEntries()); total < max; {
			cs := c.ring.PeekBatch()
			if len(cs) == 0 {
				break
			}
			c.st.Reaps++
			c.dispatch(cs)
			c.ring.Advance(uint32(len(cs)))
			total += len(cs)
		}
		if total > 0 {
			return total
		}
		// Empty, but the flags said overflow or deferred work: the copying
		// reap below enters to flush it.
	}
	for {
		n := c.ring.Reap(c.cqes)
		if n == 0 {
			break
		}
		c.st.Reaps++
		c.dispatch(c.cqes[:n])
		total += n
		if n < len(c.cqes) || c.ring.CQReady() == 0 {
			break
		}
	}
	return total
}

// dispatch delivers each CQE to its handler, or counts it as stale, or
// handles the Core's own. A handler may start operations, which may grow
// the slot table: c.slots is read afresh for every CQE.
func (c *Core) dispatch(cqes []sys.CQE) {
	for i := range cqes {
		cq := &cqes[i]
		u := cq.UserData
		idx := uint32(u)
		if u&internalBit != 0 || idx >= uint32(len(c.slots)) {
			c.other(cq)
			continue
		}
		s := &c.slots[idx]
		if g := uint32(u >> genShift); s.gen != g || g&1 == 0 || !s.holds(u) { // in flight: odd, and the token's
			c.st.Stale++
			continue
		}
		if bh := s.bh; bh != nil {
			if cq.Flags&sys.CQEFMore == 0 {
				if s.pending--; s.pending == 0 {
					c.release(idx, s)
				}
			}
			c.st.Completed++
			bh.HandleBatch(int(uint8(u>>subShift)), cq)
			continue
		}
		op, h := s.op, s.h
		if cq.Flags&sys.CQEFMore == 0 {
			c.release(idx, s)
		}
		c.st.Completed++
		if op != nil {
			op.Handle(cq)
		} else {
			h.Handle(cq)
		}
	}
}

// other handles a CQE that names no slot: the Core's own, or stale.
func (c *Core) other(cq *sys.CQE) {
	if cq.UserData&internalBit == 0 {
		c.st.Stale++
		return
	}
	switch cq.UserData {
	case udWakePoll:
		c.wake.armed = false
		c.st.WakeCQEs++
		c.wake.drain()
		if !c.stop.Load() {
			c.armWake()
		}
	case udCancelAll:
		if cq.Res == -int32(unix.EINVAL) && !c.cancelEach {
			c.cancelEach = true // no CANCEL_ANY (before 5.19): cancel slot by slot
			c.CancelAll()
		}
	}
	// Cancels, ignored SQEs, reg's re-provides and the Ring's own wakeup
	// from Close need nothing.
}
