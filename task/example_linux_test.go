//go:build linux

package task_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

// A task reads a file with straight-line code; each await parks the task
// and the executor resumes it with the result.
func Example() {
	ex, err := task.NewExecutor()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close()
	dir, _ := os.MkdirTemp("", "task-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "greeting")
	_ = os.WriteFile(path, []byte("hello from io_uring"), 0o600)

	s, err := task.Run(context.Background(), ex, func(t *task.T) (string, error) {
		fd, err := t.Open(path, unix.O_RDONLY, 0)
		if err != nil {
			return "", err
		}
		defer t.Close(fd)
		buf := make([]byte, 64)
		n, err := t.Read(fd, buf, 0)
		return string(buf[:n]), err
	})
	fmt.Println(s, err)
	// Output: hello from io_uring <nil>
}

// Spawn starts tasks; Join waits for one and returns its typed result.
func ExampleSpawn() {
	ex, _ := task.NewExecutor()
	defer ex.Close()
	sum, _ := task.Run(context.Background(), ex, func(t *task.T) (int, error) {
		var hs []*task.Handle[int]
		for i := 1; i <= 3; i++ {
			hs = append(hs, task.Spawn(t, func(t *task.T) (int, error) {
				return i * i, t.Sleep(time.Duration(i) * time.Millisecond)
			}))
		}
		total := 0
		for _, h := range hs {
			v, err := h.Join(t)
			if err != nil {
				return 0, err
			}
			total += v
		}
		return total, nil
	})
	fmt.Println(sum)
	// Output: 14
}

// FirstOf returns the first task to finish and cancels the others.
func ExampleFirstOf() {
	ex, _ := task.NewExecutor()
	defer ex.Close()
	v, _ := task.Run(context.Background(), ex, func(t *task.T) (string, error) {
		_, v, err := task.FirstOf(t,
			func(t *task.T) (string, error) { return "slow", t.Sleep(time.Hour) },
			func(t *task.T) (string, error) { return "fast", t.Sleep(time.Millisecond) },
		)
		return v, err
	})
	fmt.Println(v)
	// Output: fast
}

// A TCP echo server on tasks: one task listens and accepts, one task per
// connection receives and sends back; a goroutine dials it with net.
func Example_echoServer() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bound := make(chan netip.AddrPort, 1)
	done := make(chan error, 1)
	go func() {
		done <- serveEcho(ctx, netip.MustParseAddrPort("127.0.0.1:0"), func(a netip.AddrPort) { bound <- a })
	}()
	var addr netip.AddrPort
	select {
	case addr = <-bound:
	case err := <-done:
		fmt.Println(err)
		return
	}
	c, err := net.Dial("tcp", addr.String())
	if err != nil {
		fmt.Println(err)
		return
	}
	got := make([]byte, 4)
	_, err = c.Write([]byte("ping"))
	if err == nil {
		_, err = io.ReadFull(c, got)
	}
	c.Close()
	cancel()
	fmt.Println(string(got), err, errors.Is(<-done, context.Canceled))
	// Output: ping <nil> true
}

// serveEcho is the README's quick start for tasks (its body is the
// README's snippet, byte for byte; TestREADMESnippets checks it). It
// serves until ctx ends, then returns ctx's error.
func serveEcho(ctx context.Context, addr netip.AddrPort, ready func(netip.AddrPort)) error {
	ex, err := task.NewExecutor() // io_uring; the fallback where it is denied
	if err != nil {
		return err
	}
	defer ex.Close()
	_, err = task.Run(ctx, ex, func(t *task.T) (struct{}, error) {
		lfd, bound, err := t.Listen(addr, 0) // port 0: the kernel picks one
		if err != nil {
			return struct{}{}, err
		}
		defer t.Close(lfd)
		ready(bound)
		g := task.NewGroup(t, false) // its tasks end with ctx, too
		defer g.Wait(t)
		for {
			fd, _, err := t.Accept(lfd, 0) // parks this task, not a thread
			if err != nil {
				return struct{}{}, err // ctx's error once ctx ends
			}
			g.Go(t, func(t *task.T) error {
				defer t.Close(fd)
				buf := make([]byte, 16<<10)
				for {
					n, err := t.Recv(fd, buf, 0)
					if n == 0 || err != nil {
						return err // n == 0: the peer closed
					}
					for sent := 0; sent < n; {
						m, err := t.Send(fd, buf[sent:n], 0)
						if err != nil {
							return err
						}
						sent += m
					}
				}
			})
		}
	})
	return err
}
