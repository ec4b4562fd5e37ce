//go:build linux

package task

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestChanSemantics(t *testing.T) {
	ex := newExec(t)
	var got []int
	var sendErr error
	var okAfterClose bool
	err := runTask(t, ex, func(tk *T) error {
		c := NewChan[int](tk, 2)
		h := Spawn(tk, func(tk *T) (int, error) {
			for {
				v, ok, err := c.Recv(tk)
				if err != nil || !ok {
					return 0, err
				}
				got = append(got, v)
			}
		})
		for i := 0; i < 10; i++ {
			if err := c.Send(tk, i); err != nil {
				return err
			}
		}
		c.Close()
		sendErr = c.Send(tk, 99)
		_, err := h.Join(tk)
		_, okAfterClose, _ = c.Recv(tk)
		return err
	})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, got)
	require.ErrorIs(t, sendErr, ErrChanClosed)
	require.False(t, okAfterClose)
}

func TestUnboundedAndSelect(t *testing.T) {
	ex := newExec(t)
	var order []string
	err := runTask(t, ex, func(tk *T) error {
		u := NewUnboundedChan[string](tk)
		for i := 0; i < 1000; i++ {
			if ok, err := u.TrySend("x"); !ok || err != nil {
				return errf("unbounded TrySend %v %v", ok, err)
			}
		}
		if u.Len() != 1000 {
			return errf("len %d", u.Len())
		}
		a, b := NewChan[string](tk, 0), NewChan[string](tk, 0)
		Spawn(tk, func(tk *T) (int, error) { _ = tk.Sleep(10 * time.Millisecond); return 0, b.Send(tk, "b") })
		Spawn(tk, func(tk *T) (int, error) { _ = tk.Sleep(30 * time.Millisecond); return 0, a.Send(tk, "a") })
		for len(order) < 2 {
			i, err := Select(tk, a, b)
			if err != nil {
				return err
			}
			c := []*Chan[string]{a, b}[i]
			if v, ok, _ := c.TryRecv(); ok {
				order = append(order, v)
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"b", "a"}, order)
}

func TestBridges(t *testing.T) {
	ex := newExec(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	in := make(chan int)
	c, err := Run(ctx, ex, func(tk *T) (*Chan[int], error) { return NewChan[int](tk, 4), nil })
	require.NoError(t, err)
	FromGo(ctx, in, c)
	// Doubles every value on the executor and hands them back to Go.
	d, err := Run(ctx, ex, func(tk *T) (*Chan[int], error) {
		d := NewChan[int](tk, 0)
		Spawn(tk, func(tk *T) (int, error) {
			defer d.Close()
			for {
				v, ok, err := c.Recv(tk)
				if err != nil || !ok {
					return 0, err
				}
				if err := d.Send(tk, 2*v); err != nil {
					return 0, err
				}
			}
		})
		return d, nil
	})
	require.NoError(t, err)
	out := ToGo(ctx, d)
	go func() {
		for i := 1; i <= 5; i++ {
			in <- i
		}
		close(in)
	}()
	var got []int
	for v := range out {
		got = append(got, v)
	}
	require.Equal(t, []int{2, 4, 6, 8, 10}, got)
}
