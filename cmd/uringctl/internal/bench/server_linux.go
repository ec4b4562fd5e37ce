//go:build linux

package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/pure-uring/uring/task"
)

// taskServer serves loopback TCP on execs executors, each accepting on its
// own SO_REUSEPORT listener (thread per core, no hand-off), with a task
// per connection running serve.
type taskServer struct {
	addr    string
	exs     []*task.Executor
	files   []*os.File
	handles []*task.Handle[struct{}]
	cancel  context.CancelFunc
}

func startTaskServer(execs int, serve func(t *task.T, fd int) error, opts ...task.Option) (*taskServer, error) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &taskServer{cancel: cancel, addr: "127.0.0.1:0"}
	for i := 0; i < execs; i++ {
		ln, err := listen(s.addr, execs > 1)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.addr = ln.Addr().String()
		f, lfd, err := tcpListenerFd(ln)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.files = append(s.files, f)
		ex, err := task.NewExecutor(opts...)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.exs = append(s.exs, ex)
		s.handles = append(s.handles, task.SpawnOn(ctx, ex, func(t *task.T) (struct{}, error) {
			for {
				fd, _, err := t.Accept(lfd, 0)
				if err != nil {
					return struct{}{}, err
				}
				task.Spawn(t, func(t *task.T) (struct{}, error) {
					defer t.Close(fd)
					return struct{}{}, serve(t, fd)
				})
			}
		}))
	}
	return s, nil
}

// Close cancels the acceptors and connection tasks, and closes the
// executors and listeners.
func (s *taskServer) Close() {
	s.cancel()
	for _, h := range s.handles {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		h.Wait(ctx)
		cancel()
	}
	for _, ex := range s.exs {
		noteExecutor(ex)
		ex.Close()
	}
	closeFiles(s.files)
}

// goServer serves loopback TCP with Go's net: a goroutine per connection.
type goServer struct {
	ln   net.Listener
	addr string
	done chan struct{}
}

func startGoServer(serve func(c net.Conn)) (*goServer, error) {
	ln, err := listen("127.0.0.1:0", false)
	if err != nil {
		return nil, err
	}
	s := &goServer{ln: ln, addr: ln.Addr().String(), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return s, nil
}

func (s *goServer) Close() {
	s.ln.Close()
	<-s.done
}

// latencies keeps every 8th request latency of one client connection.
type latencies struct {
	n  int64
	ns []int64
}

func (l *latencies) add(d time.Duration) {
	if l.n&7 == 0 {
		l.ns = append(l.ns, d.Nanoseconds())
	}
	l.n++
}

// clientRun runs conns client goroutines doing request/response round
// trips for d (each with its own connection to addr) and returns the rate
// and the p99 latency in µs.
func clientRun(addr string, conns int, d time.Duration, roundTrip func(c net.Conn, scratch []byte) error) (sample, error) {
	cs := make([]net.Conn, conns)
	for i := range cs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			for _, c := range cs[:i] {
				c.Close()
			}
			return sample{}, err
		}
		cs[i] = c
	}
	lats := make([]latencies, conns)
	errs := make([]error, conns)
	done := make(chan int, conns)
	start := time.Now()
	deadline := start.Add(d)
	for i, c := range cs {
		go func(i int, c net.Conn) {
			defer func() { done <- i }()
			defer c.Close()
			scratch := make([]byte, 64<<10)
			// the clock is read after each round trip, so every connection
			// makes one however late its goroutine starts (a slow VM)
			for {
				t0 := time.Now()
				if err := roundTrip(c, scratch); err != nil {
					errs[i] = err
					return
				}
				t1 := time.Now()
				lats[i].add(t1.Sub(t0))
				if t1.After(deadline) {
					return
				}
			}
		}(i, c)
	}
	for range cs {
		<-done
	}
	el := time.Since(start)
	var all []int64
	var n int64
	for i := range lats {
		n += lats[i].n
		all = append(all, lats[i].ns...)
	}
	if err := errors.Join(errs...); err != nil {
		return sample{}, err
	}
	if n == 0 {
		return sample{}, fmt.Errorf("no round trip completed in %v", d)
	}
	sortInt64s(all)
	return sample{v: float64(n) / el.Seconds(), p99: percentile(all, 99) / 1e3}, nil
}
