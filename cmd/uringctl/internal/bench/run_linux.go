//go:build linux

package bench

import (
	"context"
	"time"

	"github.com/pure-uring/uring/task"
)

// defaultDuration is one timed run when --duration is not given.
const defaultDuration = time.Second

func (c *Config) dur() time.Duration {
	if c.Duration > 0 {
		return c.Duration
	}
	return defaultDuration
}

// timed calls fn (which does some operations and returns how many) until d
// has passed, reading the clock once per call, and returns the operations
// done and the time taken.
func timed(d time.Duration, fn func() (int, error)) (int64, time.Duration, error) {
	start := time.Now()
	var ops int64
	for {
		n, err := fn()
		ops += int64(n)
		if err != nil {
			return ops, time.Since(start), err
		}
		if el := time.Since(start); el >= d {
			return ops, el, nil
		}
	}
}

// onExecutor runs fn as a task on a new executor and closes it.
func onExecutor(fn func(t *task.T) error, opts ...task.Option) error {
	ex, err := task.NewExecutor(opts...)
	if err != nil {
		return err
	}
	_, err = task.Run(context.Background(), ex, func(t *task.T) (struct{}, error) { return struct{}{}, fn(t) })
	noteExecutor(ex)
	if cerr := ex.Close(); err == nil {
		err = cerr
	}
	return err
}

// nsPerOp is a cost sample.
func nsPerOp(ops int64, el time.Duration) sample {
	if ops == 0 {
		return sample{}
	}
	return sample{v: float64(el.Nanoseconds()) / float64(ops)}
}

// perSec is a rate sample.
func perSec(n float64, el time.Duration) sample {
	if el <= 0 {
		return sample{}
	}
	return sample{v: n / el.Seconds()}
}
