//go:build linux

package poll_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// A Loop runs its ring on a thread of its own; any goroutine hands it an
// operation with Do, which waits for the result. Memory the SQE points at
// may be reused once Do returns, even after a cancel.
func ExampleLoop_Do() {
	l, err := poll.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	pr, pw, err := os.Pipe()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pr.Close()
	defer pw.Close()
	rfd, wfd := int(pr.Fd()), int(pw.Fd())
	ctx := context.Background()

	msg := []byte("ping")
	res, err := l.Do(ctx, func(s *sys.SQE) error {
		return sqe.Write(s, wfd, msg, 0)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("wrote", res.Res, "bytes")

	buf := make([]byte, 16)
	res, err = l.Do(ctx, func(s *sys.SQE) error {
		return sqe.Read(s, rfd, buf, 0)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("read %q\n", buf[:res.Res])

	// A failed operation is an *poll.OpError that unwraps to the errno.
	_, err = l.Do(ctx, func(s *sys.SQE) error {
		return sqe.Read(s, wfd, buf, 0) // the write end
	})
	fmt.Println("read the write end:", errors.Is(err, unix.EBADF))

	// The pipe is empty now: the read waits until ctx ends, then Do
	// cancels it and returns once its CQE is in.
	ctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	res, err = l.Do(ctx, func(s *sys.SQE) error {
		return sqe.Read(s, rfd, buf, 0)
	})
	fmt.Printf("read an empty pipe: %v (its CQE: %v)\n", err, unix.Errno(-res.Res))
	// Output:
	// wrote 4 bytes
	// read "ping"
	// read the write end: true
	// read an empty pipe: context deadline exceeded (its CQE: operation canceled)
}

// Go does not wait: its callback runs on the loop thread for every CQE of
// the operation (a multishot one posts several; Result.More says whether
// more follow). Here a read waits on an empty pipe until Do writes to it.
func ExampleLoop_Go() {
	l, err := poll.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	pr, pw, err := os.Pipe()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pr.Close()
	defer pw.Close()

	buf := make([]byte, 16) // the kernel writes it until the CQE
	got := make(chan string, 1)
	err = l.Go(func(s *sys.SQE) error {
		return sqe.Read(s, int(pr.Fd()), buf, 0)
	}, func(r poll.Result, err error) {
		// On the loop thread: record or hand off, never block.
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(buf[:r.Res])
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	msg := []byte("ping")
	if _, err := l.Do(context.Background(), func(s *sys.SQE) error {
		return sqe.Write(s, int(pw.Fd()), msg, 0)
	}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("read %q\n", <-got)
	// Output: read "ping"
}

// A Shared ring needs no thread of its own: the goroutine that calls Do
// submits and waits itself while no other leads, and goroutines that call
// it together share one submit and reap.
func ExampleShared() {
	sh, err := poll.NewShared(8)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()

	pr, pw, err := os.Pipe()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pr.Close()
	defer pw.Close()
	rfd, wfd := int(pr.Fd()), int(pw.Fd())

	msg := []byte("pong")
	res, _, err := sh.Do(func(s *sys.SQE) error {
		return sqe.Write(s, wfd, msg, 0)
	}, msg) // msg stays pinned until the CQE
	if err != nil {
		fmt.Println(err) // prep failed, or the ring is closed
		return
	}
	if res < 0 {
		fmt.Println(unix.Errno(-res)) // the kernel's error: res is -errno
		return
	}
	fmt.Println("wrote", res, "bytes")

	buf := make([]byte, 16)
	res, _, err = sh.Do(func(s *sys.SQE) error {
		return sqe.Read(s, rfd, buf, 0)
	}, buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	if res < 0 {
		fmt.Println(unix.Errno(-res))
		return
	}
	fmt.Printf("read %q\n", buf[:res])
	// Output:
	// wrote 4 bytes
	// read "pong"
}
