//go:build linux

package sqe_test

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/sqe"
)

// A write to a pipe linked to a read of it: the read starts only after the
// write succeeded, and both go to the kernel in one submit.
func Example() {
	ring, err := uring.New(8)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ring.Close()

	// A nonblocking pipe: the kernel writes and reads it inline (or polls
	// it) instead of handing the request to an io-wq worker thread, which
	// 5.10 to 6.1 can fail to start (the request then ends ECANCELED).
	// Code that needs io-wq calls reg.StartIOWorkers on its locked thread
	// first, as poll and task do.
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		fmt.Println(err)
		return
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])

	msg := []byte("hello")
	buf := make([]byte, 16)
	if err := queueWrite(ring, p[1], msg); err != nil {
		fmt.Println(err)
		return
	}
	s, err := ring.GetSQE()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := sqe.Read(s, p[0], buf, 0); err != nil {
		fmt.Println(err)
		return
	}
	sqe.SetUserData(s, 2)

	if _, err := ring.SubmitAndWait(2); err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		c, err := ring.WaitCQE()
		if err != nil {
			fmt.Println(err)
			return
		}
		n, err := cqe.Result(c)
		fmt.Println("user_data", c.UserData, "result", n, err)
		ring.CQESeen(c)
	}
	// The kernel used msg and buf until their CQEs.
	runtime.KeepAlive(msg)
	fmt.Printf("%q\n", buf[:len(msg)])
	// Output:
	// user_data 1 result 5 <nil>
	// user_data 2 result 5 <nil>
	// "hello"
}

// queueWrite's body is the package overview's snippet (TestDocSnippet
// checks it): get an SQE, fill it with a builder, then the modifiers.
func queueWrite(ring *uring.Ring, fd int, msg []byte) error {
	s, err := ring.GetSQE()
	if err != nil {
		return err // uring.ErrSQFull: every SQE is handed out; submit first
	}
	if err := sqe.Write(s, fd, msg, 0); err != nil {
		return err // an *ArgError naming the argument; s stays a zeroed SQE (a NOP)
	}
	sqe.SetUserData(s, 1) // the CQE carries it
	sqe.SetLink(s)        // the next SQE starts only after this one succeeds
	return nil
}
