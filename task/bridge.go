package task

import "context"

// FromGo forwards the values of the Go channel ch into the task channel c
// until ch is closed (then c is closed) or ctx is done. A goroutine does
// the receiving; each value is sent by a small task, so a full c holds the
// goroutine back (backpressure) without blocking the executor.
func FromGo[V any](ctx context.Context, ch <-chan V, c *Chan[V]) {
	go func() {
		for {
			select {
			case v, ok := <-ch:
				if !ok {
					_, _ = call(context.Background(), c.ex, func(t *T) (struct{}, error) { c.Close(); return struct{}{}, nil })
					return
				}
				if _, err := call(ctx, c.ex, func(t *T) (struct{}, error) { return struct{}{}, c.Send(t, v) }); err != nil {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
}

// ToGo returns a Go channel that receives the values of the task channel
// c, and is closed when c is closed and drained, or ctx is done.
func ToGo[V any](ctx context.Context, c *Chan[V]) <-chan V {
	out := make(chan V)
	go func() {
		defer close(out)
		type recv struct {
			v  V
			ok bool
		}
		for {
			r, err := call(ctx, c.ex, func(t *T) (recv, error) {
				v, ok, err := c.Recv(t)
				return recv{v, ok}, err
			})
			if err != nil || !r.ok {
				return
			}
			select {
			case out <- r.v:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
