//go:build linux

package task

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The steady-state await path allocates nothing.
func TestAwaitAllocs(t *testing.T) {
	ex := newExec(t)
	r, w := pipe(t)
	var nop, read, write, yield float64
	err := runTask(t, ex, func(tk *T) error {
		buf := make([]byte, 64)
		msg := []byte("x")
		// Warm up: slots, pinner, queues.
		for i := 0; i < 10; i++ {
			_ = tk.Nop()
			_, _ = tk.Write(w, msg, CurrentPos)
			_, _ = tk.Read(r, buf, CurrentPos)
		}
		nop = testing.AllocsPerRun(200, func() { _ = tk.Nop() })
		write = testing.AllocsPerRun(200, func() { _, _ = tk.Write(w, msg, CurrentPos) })
		read = testing.AllocsPerRun(200, func() { _, _ = tk.Read(r, buf[:1], CurrentPos) })
		yield = testing.AllocsPerRun(200, func() { tk.Yield() })
		return nil
	})
	require.NoError(t, err)
	require.Zero(t, nop, "Nop allocs")
	require.Zero(t, write, "Write allocs")
	require.Zero(t, read, "Read allocs")
	require.Zero(t, yield, "Yield allocs")
}
