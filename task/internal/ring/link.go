//go:build linux

package ring

import (
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// chain is the record of a Link w waits for: its slots, with the token
// each had, so that a cancel never reaches a slot done and reused since.
type chain struct {
	slots []*slot
	toks  []poll.Token
}

// link submits op.Links as one IOSQE_IO_LINK chain: each starts only after
// the previous one succeeded; after a failure the rest complete with
// -ECANCELED. Their results go to op.Results; w runs again when all are
// in.
func (r *Backend) link(w *iop.Waiter, op *iop.Op) iop.Status {
	ops := op.Links
	n := uint32(len(ops))
	// Check every op before the first SQE is taken: a chain goes in whole.
	var scratch sys.SQE
	var ts sys.Timespec
	for i := range ops {
		if ops[i].Code != iop.Raw {
			if err := buildLinked(&scratch, &ts, &ops[i]); err != nil {
				return w.Finish(0, err)
			}
		}
	}
	if n > r.ring.SQEntries() {
		return w.Finish(0, iop.BadArg("len(ops)", "exceeds the SQ size"))
	}
	ch := &chain{slots: make([]*slot, n), toks: make([]poll.Token, n)}
	built := 0 // slots whose SQE is in the ring
	defer func() {
		if built < len(ops) && ch.slots[built] != nil {
			// An SQEOp's prep panicked: nothing of the chain was submitted
			// (its SQEs are contiguous, room was made first): every SQE of
			// it becomes an ignored NOP and every slot is freed, then the
			// panic goes on.
			for _, sl := range ch.slots[:built+1] {
				r.abandon(sl.linkSQE, sl)
			}
		}
	}()
	for i := range ops {
		need := uint32(1)
		if i == 0 {
			need = n // the chain must be contiguous in one submission
		}
		sl := r.allocSlot()
		s, err := r.sqeRoom(need)
		if err != nil {
			r.freeSlot(sl)
			abandonChain(ch.slots[:i])
			return w.Finish(0, err)
		}
		o := &ops[i]
		sl.linkSQE = s // read only if a prep panics, in this call
		ch.slots[i] = sl
		_ = buildLinked(s, &sl.ts, o) // checked above; a Raw prep may panic
		s.UserData = sl.ud()
		if o.Code == iop.Read || o.Code == iop.Write {
			sl.keepBytes(o.Buf)
		}
		if i < len(ops)-1 {
			sqe.SetLink(s)
		}
		sl.w, sl.out = w, &op.Results[i]
		ch.toks[i] = sl.tok
		built = i + 1
	}
	w.Pending = int32(n)
	w.Ref = ch
	return iop.Parked
}

// abandonChain lets the slots of a chain that could not be completed go:
// their SQEs are already in the ring, linked, and complete (the unlinked
// last one runs, the rest follow it) with nobody waiting.
func abandonChain(slots []*slot) {
	for _, sl := range slots {
		sl.w, sl.out = nil, nil
	}
}
