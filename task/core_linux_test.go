//go:build linux

package task

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNopAndSpawnJoin(t *testing.T) {
	ex := newExec(t)
	var sum int
	err := runTask(t, ex, func(tk *T) error {
		if err := tk.Nop(); err != nil {
			return err
		}
		hs := make([]*Handle[int], 100)
		for i := range hs {
			hs[i] = Spawn(tk, func(tk *T) (int, error) {
				if err := tk.Nop(); err != nil {
					return 0, err
				}
				return i, nil
			})
		}
		for _, h := range hs {
			v, err := h.Join(tk)
			if err != nil {
				return err
			}
			sum += v
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 4950, sum)
}

func TestPanicReportedToJoiner(t *testing.T) {
	ex := newExec(t)
	var perr *PanicError
	err := runTask(t, ex, func(tk *T) error {
		h := Spawn(tk, func(tk *T) (int, error) {
			_ = tk.Nop()
			panic("boom")
		})
		_, err := h.Join(tk)
		return err
	})
	require.True(t, errors.As(err, &perr), "err = %v", err)
	require.Equal(t, "boom", perr.Value)
	// The executor keeps running.
	require.NoError(t, runTask(t, ex, func(tk *T) error { return tk.Nop() }))
}

func TestPipeReadWrite(t *testing.T) {
	ex := newExec(t)
	var p [2]int
	p[0], p[1] = pipe(t)
	got := make([]byte, 5)
	var n int
	err := runTask(t, ex, func(tk *T) error {
		r := Spawn(tk, func(tk *T) (int, error) { return tk.Read(p[0], got, CurrentPos) })
		if _, err := tk.Write(p[1], []byte("hello"), CurrentPos); err != nil {
			return err
		}
		var err error
		n, err = r.Join(tk)
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 5, n)
	require.Equal(t, "hello", string(got))
}
