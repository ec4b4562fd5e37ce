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
// step: one slot for the batch, the SQEs taken from the SQ a run at a time
// (one space check and one clearing per run, as Ring.GetSQEs), and prep
// called for each with its index to fill it (an sqe builder, say). SQE i's
// user_data is t.At(i), written after prep returns; h.HandleBatch gets i
// with each CQE. Loop thread only; it submits nothing (the loop submits
// when control returns to it).
//
// It returns the batch's token and how many SQEs went ahead: n, or, when
// prep fails for SQE i (or writes an opcode the kernel lacks), i, with
// the error. SQEs before i complete to h as usual; SQE i and the rest
// become ignored NOPs. ErrSQFull or ErrClosed also stop it there.
//
// prep must not set IOSQE_CQE_SKIP_SUCCESS (the batch would wait for a CQE
// that never comes).
func (l *Loop) PrepBatch(h BatchHandler, n int, prep func(i int, s *sys.SQE) error) (Token, int, error) {
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
	sl.bh, sl.size = h, uint16(n)
	t := token(idx, sl.gen)
	for done := 0; done < n; {
		run, err := l.ring.GetSQEs(uint32(n - done))
		if err != nil {
			if !errors.Is(err, uring.ErrSQFull) {
				return t, l.endBatch(idx, sl, done), err
			}
			l.submit()
			if run, err = l.ring.GetSQEs(uint32(n - done)); err != nil {
				return t, l.endBatch(idx, sl, done), err
			}
		}
		l.unflushed += len(run)
		for k := range run {
			s := &run[k]
			i := done + k
			if err := prep(i, s); err != nil || !feature.OpKnown(s.Opcode) {
				if err := unprepared(s, err); err != nil {
					for j := k + 1; j < len(run); j++ {
						ignoredNop(&run[j])
					}
					return t, l.endBatch(idx, sl, i), fmt.Errorf("poll: PrepBatch: SQE %d: %w", i, err)
				}
			}
			s.UserData = uint64(t) | uint64(i)<<subShift // t.At(i): t's index is 0
		}
		done += len(run)
	}
	sl.pending = uint32(n)
	l.st.Submitted += uint64(n)
	return t, n, nil
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
