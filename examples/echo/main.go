//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

// Command echo is a TCP echo server on the task runtime: an accept task
// per executor, one task per connection doing RECV then SEND.
//
//	echo [-addr 127.0.0.1:7007] [-max N]
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"

	"github.com/pure-uring/uring/task"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7007", "listen address")
	max := flag.Int("max", 0, "exit after serving this many connections (0: never)")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "echo:", err)
		os.Exit(1)
	}
	fmt.Println("echo: listening on", ln.Addr())
	if err := serve(context.Background(), ln.(*net.TCPListener), *max); err != nil {
		fmt.Fprintln(os.Stderr, "echo:", err)
		os.Exit(1)
	}
}

// serve echoes on ln until ctx is done or max connections were served.
func serve(ctx context.Context, ln *net.TCPListener, max int) error {
	f, err := ln.File()
	if err != nil {
		return err
	}
	defer f.Close()
	lfd := int(f.Fd())
	ex, err := task.NewExecutor()
	if err != nil {
		return err
	}
	defer ex.Close()
	_, err = task.Run(ctx, ex, func(t *task.T) (struct{}, error) {
		g := task.NewGroup(t, false)
		for n := 0; max == 0 || n < max; n++ {
			fd, _, err := t.Accept(lfd, 0)
			if err != nil {
				return struct{}{}, err
			}
			g.Go(t, func(t *task.T) error { return echo(t, fd) })
		}
		return struct{}{}, g.Wait(t)
	})
	return err
}

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
