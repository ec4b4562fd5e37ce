package task

import (
	"time"

	"github.com/pure-uring/uring/task/internal/iop"
)

// CurrentPos as an offset reads or writes at the file position.
const CurrentPos int64 = -1

// Nop awaits a NOP (io_uring_prep_nop, 5.1); on the fallback it returns at
// once. Either way it checks the task's context.
func (t *T) Nop() error {
	t.ex.prep(iop.Nop, -1)
	_, err := t.await()
	return err
}

// Sleep parks the task for d (IORING_OP_TIMEOUT, 5.4; a timer on the
// fallback); a cancelled context ends it early with the context's error.
func (t *T) Sleep(d time.Duration) error {
	t.ex.prep(iop.Sleep, -1).Dur = d
	_, err := t.await()
	return err
}
