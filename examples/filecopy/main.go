//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

// Command filecopy copies a file with io_uring: a pipeline of tasks on one
// executor, reads and writes of 64 KiB chunks with up to 8 in flight.
//
//	filecopy SRC DST
package main

import (
	"context"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

const chunk = 64 << 10

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: filecopy SRC DST")
		os.Exit(2)
	}
	n, err := copyFile(os.Args[1], os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "filecopy:", err)
		os.Exit(1)
	}
	fmt.Printf("copied %d bytes\n", n)
}

func copyFile(src, dst string) (int64, error) {
	ex, err := task.NewExecutor()
	if err != nil {
		return 0, err
	}
	defer ex.Close()
	return task.Run(context.Background(), ex, func(t *task.T) (int64, error) {
		in, err := t.Open(src, unix.O_RDONLY, 0)
		if err != nil {
			return 0, err
		}
		defer t.Close(in)
		size, mode, err := sizeAndMode(t, in)
		if err != nil {
			return 0, err
		}
		out, err := t.Open(dst, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC, mode)
		if err != nil {
			return 0, err
		}
		defer t.Close(out)
		g := task.NewGroup(t, true)
		sem := task.NewChan[struct{}](t, 8)
		for off := int64(0); off < size; off += chunk {
			if err := sem.Send(t, struct{}{}); err != nil {
				return 0, err
			}
			g.Go(t, func(t *task.T) error {
				defer sem.TryRecv()
				buf := make([]byte, min(chunk, size-off))
				for done := 0; done < len(buf); {
					n, err := t.Read(in, buf[done:], off+int64(done))
					if err != nil {
						return err
					}
					if n == 0 {
						return fmt.Errorf("%s shrank while copying", src)
					}
					done += n
				}
				for done := 0; done < len(buf); {
					n, err := t.Write(out, buf[done:], off+int64(done))
					if err != nil {
						return err
					}
					done += n
				}
				return nil
			})
		}
		if err := g.Wait(t); err != nil {
			return 0, err
		}
		return size, t.Fsync(out, 0)
	})
}
