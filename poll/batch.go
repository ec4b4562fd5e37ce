//go:build linux

package poll

import (
	"errors"
	"fmt"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sys"
)

// PrepBatch prepares n SQEs (1..MaxBatch) whose CQEs all go to h, in one
// step: one slot for the batch, and the SQEs taken from the SQ a run at a
// time (one space check and one clearing per run, as Ring.GetSQEs; a
// batch that wraps around the SQ's end, or meets a full SQ, comes in two
// or more runs). prep fills each run: run[k] is the batch's SQE i+k (an
// sqe builder per SQE, say). SQE j's user_data is t.At(j), written after
// prep returns; h.HandleBatch gets j with each CQE. Loop thread only; it
// submits nothing (the loop submits when control returns to it), except
// to make room when the SQ is full.
//
// It returns the batch's token and how many SQEs went ahead: n, or, when
// prep fails for the run that starts at SQE i (or writes an opcode the
// kernel lacks into it), i, with the error. SQEs before i complete to h as
// usual; that run becomes ignored NOPs and the rest are not taken.
// ErrSQFull or ErrClosed also stop it there.
//
// prep must not set IOSQE_CQE_SKIP_SUCCESS (the batch would wait for a CQE
// that never comes).
func (l *Loop) PrepBatch(h BatchHandler, n int, prep func(i int, run []sys.SQE) error) (Token, int, error) {
	if checkThread && sys.Gettid() != l.tid {
		return 0, 0, ErrNotLoopThread
	}
	switch {
	case h == nil:
		return 0, 0, errors.New("poll: PrepBatch: h is nil")
	case prep == nil:
		return 0, 0, errors.New("poll: PrepBatch: prep is nil")
	case n < 1 || n > MaxBatch:
		return 0, 0, fmt.Errorf("poll: PrepBatch: n = %d, want 1..%d", n, MaxBatch)
	case l.closing:
		return 0, 0, uring.ErrClosed
	}
	idx, sl := l.c.take()
	sl.bh, sl.size, sl.pending = h, uint16(n), uint32(n)
	ud := uint64(token(idx, sl.gen)) // t.At(0): its index bits are 0
	for done := 0; done < n; {
		run, err := l.ring.GetSQEs(uint32(n - done))
		if err != nil {
			if !errors.Is(err, uring.ErrSQFull) {
				return Token(ud), l.endBatch(idx, sl, done), err
			}
			l.submit()
			if run, err = l.ring.GetSQEs(uint32(n - done)); err != nil {
				return Token(ud), l.endBatch(idx, sl, done), err
			}
		}
		l.unflushed += len(run)
		err = prep(done, run)
		for k := range run {
			s := &run[k]
			if err == nil && !feature.OpKnown(s.Opcode) {
				err = feature.OpMiss(s.Opcode) // nil: the kernel has it after all
			}
			if err != nil {
				for j := range run {
					ignoredNop(&run[j])
				}
				return Token(ud), l.endBatch(idx, sl, done), fmt.Errorf("poll: PrepBatch: SQEs %d..%d: %w", done, done+len(run)-1, err)
			}
			s.UserData = ud | uint64(done+k)<<subShift
		}
		done += len(run)
	}
	l.st.Submitted += uint64(n)
	return Token(ud), n, nil
}

// endBatch settles a batch that stopped after k SQEs: they complete to its
// handler; with none, the slot is freed at once. It returns k.
func (l *Loop) endBatch(idx uint32, sl *slot, k int) int {
	l.st.Submitted += uint64(k)
	if k == 0 {
		l.c.release(idx, sl)
		return 0
	}
	sl.pending, sl.size = uint32(k), uint16(k)
	return k
}
