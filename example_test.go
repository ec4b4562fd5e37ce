//go:build linux

package uring_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/sqe"
)

// A raw ring reading a file: get an SQE, prepare it, submit and wait, read
// the result from the CQE.
func Example() {
	dir, _ := os.MkdirTemp("", "uring-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "greeting")
	_ = os.WriteFile(path, []byte("hello, io_uring"), 0o600)
	f, err := os.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()

	r, err := uring.New(8)
	if err != nil {
		fmt.Println(err) // errors.Is(err, uring.ErrUnsupported) explains why
		return
	}
	defer r.Close()

	buf := make([]byte, 64)
	s, _ := r.GetSQE()
	if err := sqe.Read(s, int(f.Fd()), buf, 0); err != nil {
		fmt.Println(err)
		return
	}
	sqe.UserData(s, 1)
	if _, err := r.SubmitAndWait(1); err != nil {
		fmt.Println(err)
		return
	}
	c, _ := r.WaitCQE()
	n, err := cqe.Result(c)
	r.CQESeen(c)
	runtime.KeepAlive(buf) // the kernel wrote into buf until the CQE
	fmt.Println(n, err, string(buf[:n]))
	// Output: 15 <nil> hello, io_uring
}
