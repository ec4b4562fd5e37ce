//go:build linux

package poll

import (
	"errors"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// Prep takes an SQE, lets prep fill it (an sqe builder, say), and
// registers h for its CQEs under a fresh token, which it writes into
// user_data after prep returns. Loop thread only (a Handler or a Run
// function). It submits nothing: the loop submits the batch when control
// returns to it. If prep fails, or writes an opcode the kernel lacks
// (an error wrapping uring.ErrUnsupported that names it), the SQE becomes
// an ignored NOP and Prep returns the error. uring.ErrSQFull means the SQ stayed full after a
// submit; ErrClosed that the loop is shutting down.
//
// prep must not set IOSQE_CQE_SKIP_SUCCESS (the slot would wait for a CQE
// that never comes).
func (l *Loop) Prep(h Handler, prep func(*sys.SQE) error) (Token, error) {
	if checkThread && sys.Gettid() != l.tid {
		return 0, ErrNotLoopThread
	}
	if l.closing {
		return 0, uring.ErrClosed
	}
	// Written out as Start is: GetSQE and the opcode check inline, one
	// call for the slot.
	s, err := l.ring.GetSQE()
	if err != nil {
		if s, err = l.getSQEFull(err); err != nil {
			return 0, err
		}
	}
	l.unflushed++
	l.st.Submitted++
	if err := prep(s); err != nil || !feature.OpKnown(s.Opcode) {
		if err := unprepared(s, err); err != nil {
			return 0, err
		}
	}
	idx, sl := l.c.take()
	sl.h = h
	t := token(idx, sl.gen)
	s.UserData = uint64(t)
	return t, nil
}

// Op is an operation that prepares its own SQE and handles its CQEs; a
// pointer to a long-lived struct makes Start allocation-free.
type Op interface {
	Prep(s *sys.SQE) error
	Handler
}

// Start is Prep for an Op. Loop thread only. It is the loop's hot path,
// written out in full: the SQE, then the slot (no interface conversion:
// the slot keeps the Op itself).
func (l *Loop) Start(op Op) (Token, error) {
	if checkThread && sys.Gettid() != l.tid {
		return 0, ErrNotLoopThread
	}
	if l.closing {
		return 0, uring.ErrClosed
	}
	s, err := l.ring.GetSQE()
	if err != nil {
		if s, err = l.getSQEFull(err); err != nil {
			return 0, err
		}
	}
	l.unflushed++
	l.st.Submitted++
	// prepared, written out: the opcode check inlined.
	if err := op.Prep(s); err != nil || !feature.OpKnown(s.Opcode) {
		if err := unprepared(s, err); err != nil {
			return 0, err
		}
	}
	idx, sl := l.c.take()
	sl.op = op
	t := token(idx, sl.gen)
	s.UserData = uint64(t)
	return t, nil
}

// Cancel asks the kernel to cancel the operation t (IORING_OP_ASYNC_CANCEL
// by user_data); its handler still gets its final CQE (-ECANCELED, or its
// result if it finished first). Loop thread only. Cancelling a token no
// longer in flight does nothing.
func (l *Loop) Cancel(t Token) error {
	if checkThread && sys.Gettid() != l.tid {
		return ErrNotLoopThread
	}
	if !l.c.InFlightToken(t) {
		return nil
	}
	return l.cancelSQE(uint64(t))
}

func (l *Loop) cancelSQE(ud uint64) error {
	s, err := l.getSQE()
	if err != nil {
		return err
	}
	_ = sqe.Cancel(s, ud, 0) // no flags: nothing to refuse
	s.UserData = udCancel
	l.st.Cancels++
	return nil
}

// getSQE hands out a zeroed SQE, submitting once to make room when the SQ
// is full.
func (l *Loop) getSQE() (*sys.SQE, error) {
	if checkThread {
		l.assertThread()
	}
	s, err := l.ring.GetSQE()
	if err != nil {
		if s, err = l.getSQEFull(err); err != nil {
			return nil, err
		}
	}
	l.unflushed++
	l.st.Submitted++
	return s, nil
}

// getSQEFull retries GetSQE once after a submit when err says the SQ is
// full.
func (l *Loop) getSQEFull(err error) (*sys.SQE, error) {
	if !errors.Is(err, uring.ErrSQFull) {
		return nil, err
	}
	l.submit()
	return l.ring.GetSQE()
}

// prepared checks what a prep function left in s: when it failed (err),
// or wrote an opcode the kernel lacks, s becomes an ignored NOP (prep's
// flags, a link among them, go too) and the error says why. For every
// opcode the kernel has, it costs a bit test.
func prepared(s *sys.SQE, err error) error {
	if err == nil && feature.OpKnown(s.Opcode) {
		return nil // the rest is out of line
	}
	return unprepared(s, err)
}

// unprepared is prepared's slow path: an opcode the mask did not pass yet
// may still be supported; otherwise s becomes an ignored NOP.
//
//go:noinline
func unprepared(s *sys.SQE, err error) error {
	if err == nil {
		if err = feature.OpMiss(s.Opcode); err == nil {
			return nil
		}
	}
	ignoredNop(s)
	return err
}

// ignoredNop turns s into a NOP whose CQE the Core drops.
func ignoredNop(s *sys.SQE) {
	sqe.Nop(s)
	s.UserData = IgnoreUserData
}
