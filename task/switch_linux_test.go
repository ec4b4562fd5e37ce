//go:build linux

package task

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOneSwitchPerAwait: 32 tasks that each await NOPs in a loop cost one
// coroutine switch per await, not two: a parking task resumes the next
// runnable one itself, and when a reap wakes the tasks on the resume
// stack each switch back activates the task below. Each resume is a
// switch in and one back, so one switch per await is half a resume.
func TestOneSwitchPerAwait(t *testing.T) {
	requireRing(t)
	ex := newExec(t)
	const tasks, awaits = 32, 200
	var resumes, done int
	_, err := Run(context.Background(), ex, func(tk *T) (struct{}, error) {
		hs := make([]*Handle[int], tasks)
		for i := range hs {
			hs[i] = Spawn(tk, func(tk *T) (int, error) {
				for k := 0; k < awaits; k++ {
					if err := tk.Nop(); err != nil {
						return k, err
					}
				}
				return awaits, nil
			})
		}
		before := tk.ex.stats.resumes
		for _, h := range hs {
			n, err := h.Join(tk)
			if err != nil {
				return struct{}{}, err
			}
			done += n
		}
		resumes = tk.ex.stats.resumes - before
		return struct{}{}, nil
	})
	require.NoError(t, err)
	require.Equal(t, tasks*awaits, done)
	// Two switches per await (through the executor, or a resume stack cut
	// at 4 deep) would be about one resume per await: 6400 here.
	require.LessOrEqual(t, resumes, tasks*awaits*6/10, "resumes for %d awaits", done)
}
