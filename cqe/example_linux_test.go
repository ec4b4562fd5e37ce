//go:build linux

package cqe_test

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// A multishot timeout (Linux 6.4) fires three times: each firing posts a
// CQE whose result is ETIME, and every CQE but the last carries F_MORE,
// which says the request is still armed and more CQEs follow.
func ExampleMore() {
	r, err := uring.New(8)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()

	ts := new(sys.Timespec) // the kernel reads it until the last CQE
	s, err := r.GetSQE()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := sqe.Timeout(s, ts, time.Millisecond, 3, sys.TimeoutMultishot); err != nil {
		fmt.Println(err)
		return
	}
	sqe.SetUserData(s, 42)
	if _, err := r.Submit(); err != nil {
		fmt.Println(err)
		return
	}

	for more := true; more; {
		c, err := r.WaitCQE()
		if err != nil {
			fmt.Println(err)
			return
		}
		// Decode before CQESeen: the kernel reuses the slot after it.
		_, err = cqe.Result(c)
		more = cqe.More(c)
		fmt.Printf("user_data %d: %v, more: %v\n", c.UserData, err, more)
		r.CQESeen(c)
	}
	runtime.KeepAlive(ts)
	// Output:
	// user_data 42: timer expired, more: true
	// user_data 42: timer expired, more: true
	// user_data 42: timer expired, more: false
}

// A failed request: its CQE's result is -errno. Result returns the bare
// errno; Err wraps it with the opcode and fd the caller knows.
func ExampleErr() {
	r, err := uring.New(8)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()

	// Reading the write end of a pipe fails with EBADF.
	pr, pw, err := os.Pipe()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pr.Close()
	defer pw.Close()
	fd := int(pw.Fd())

	buf := make([]byte, 16)
	s, err := r.GetSQE()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := sqe.Read(s, fd, buf, 0); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := r.SubmitAndWait(1); err != nil {
		fmt.Println(err)
		return
	}
	c, err := r.WaitCQE()
	if err != nil {
		fmt.Println(err)
		return
	}
	n, errno := cqe.Result(c)
	err = cqe.Err(c, sys.OpRead, fd)
	r.CQESeen(c)
	runtime.KeepAlive(buf)

	fmt.Println(n, errno)
	fmt.Println(errors.Is(err, unix.EBADF))
	var e *cqe.Error
	if errors.As(err, &e) {
		fmt.Println(e.Op, e.Errno())
	}
	// Output:
	// 0 bad file descriptor
	// true
	// READ bad file descriptor
}
