//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

// Command echo is a TCP echo server on the task runtime: one listening
// socket (t.Listen), an accept task on every executor, and one task per
// connection doing RECV then SEND on the executor that accepted it.
//
//	echo [-addr 127.0.0.1:7007] [-max N]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7007", "listen address (ip:port)")
	max := flag.Int("max", 0, "exit after serving this many connections (0: never)")
	flag.Parse()
	ap, err := netip.ParseAddrPort(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "echo: -addr:", err)
		os.Exit(2)
	}
	ready := func(at netip.AddrPort) { fmt.Println("echo: listening on", at) }
	if err := serve(context.Background(), ap, *max, ready); err != nil {
		fmt.Fprintln(os.Stderr, "echo:", err)
		os.Exit(1)
	}
}

// serve echoes on addr until ctx is done (then it returns nil) or, when
// max > 0, until max connections were accepted and served.
func serve(ctx context.Context, addr netip.AddrPort, max int, ready func(netip.AddrPort)) error {
	rt, err := task.NewRuntime(0) // one executor per CPU; the fallback where io_uring is denied
	if err != nil {
		return err
	}
	defer rt.Close()
	exs := rt.Executors()
	type listened struct {
		fd    int
		bound netip.AddrPort
	}
	l, err := task.Run(ctx, exs[0], func(t *task.T) (listened, error) {
		fd, bound, err := t.Listen(addr, 0)
		return listened{fd, bound}, err
	})
	if err != nil {
		return err
	}
	defer unix.Close(l.fd)
	ready(l.bound)

	// The accepts end at ctx's end, or once max connections were taken;
	// the connections' tasks run on ctx, so those already accepted finish.
	actx, stopAccepts := context.WithCancel(ctx)
	defer stopAccepts()
	var taken atomic.Int64
	var conns sync.WaitGroup
	accepts := make([]*task.Handle[struct{}], len(exs))
	for i, ex := range exs {
		accepts[i] = task.SpawnOn(actx, ex, func(t *task.T) (struct{}, error) {
			for max == 0 || taken.Load() < int64(max) {
				fd, _, err := t.Accept(l.fd, 0)
				if err != nil {
					return struct{}{}, err
				}
				conns.Add(1)
				task.SpawnOn(ctx, ex, func(t *task.T) (struct{}, error) {
					defer conns.Done()
					return struct{}{}, echo(t, fd)
				})
				if max > 0 && taken.Add(1) >= int64(max) {
					stopAccepts()
				}
			}
			return struct{}{}, nil
		})
	}
	var errs []error
	for _, h := range accepts {
		if _, err := h.Wait(context.Background()); err != nil && !errors.Is(err, context.Canceled) {
			errs = append(errs, err)
		}
	}
	conns.Wait()
	return errors.Join(errs...)
}

// echo sends back what fd receives until the peer closes.
func echo(t *task.T, fd int) error {
	defer t.Close(fd)
	buf := make([]byte, 16<<10)
	for {
		n, err := t.Recv(fd, buf, 0)
		if err != nil || n == 0 {
			return err
		}
		for done := 0; done < n; {
			m, err := t.Send(fd, buf[done:n], 0)
			if err != nil {
				return err
			}
			done += m
		}
	}
}
