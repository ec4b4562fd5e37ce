//go:build linux

package uring_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
)

// A raw ring writing a file and reading it back: get an SQE, prepare it,
// submit and wait, read the result from the CQE; twice.
func Example() {
	dir, err := os.MkdirTemp("", "uring-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := writeReadBack(filepath.Join(dir, "greeting")); err != nil {
		fmt.Println(err)
	}
	// Output: "hello, io_uring"
}

// writeReadBack's body is the README's raw-ring snippet, byte for byte
// (TestREADMESnippets checks it).
func writeReadBack(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()

	// A request belongs to the thread that submitted it, and the kernel
	// cancels it if that thread exits: keep this one until the last CQE.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	r, err := uring.New(8)
	if err != nil {
		return err // errors.Is(err, uring.ErrUnsupported) explains disabled io_uring or seccomp
	}
	defer r.Close()
	// Start this thread's io-wq workers before a request needs one (5.10
	// and 6.1 cancel a request whose worker's start a signal spoiled).
	if err := reg.StartIOWorkers(r); err != nil {
		return err
	}

	// The kernel uses msg and buf after Submit returns, up to their CQEs:
	// pin them (a pinned object also stays alive) until then.
	var pins runtime.Pinner
	defer pins.Unpin()

	// Write: get a zeroed SQE, prepare it, submit, wait, decode the CQE.
	msg := []byte("hello, io_uring")
	pins.Pin(&msg[0])
	s, err := r.GetSQE() // uring.ErrSQFull when every SQE is handed out
	if err != nil {
		return err
	}
	if err := sqe.Write(s, int(f.Fd()), msg, 0); err != nil {
		return err // a bad argument, named
	}
	sqe.SetUserData(s, 1)
	if _, err := r.SubmitAndWait(1); err != nil {
		return err
	}
	c, err := r.WaitCQE()
	if err != nil {
		return err
	}
	n, err := cqe.Result(c) // byte count, or the errno (a syscall.Errno)
	r.CQESeen(c)            // the CQE's slot is the kernel's again
	if err != nil {
		return err
	}
	if n != len(msg) {
		return io.ErrShortWrite
	}

	// Read it back the same way.
	buf := make([]byte, 64)
	pins.Pin(&buf[0])
	if s, err = r.GetSQE(); err != nil {
		return err
	}
	if err := sqe.Read(s, int(f.Fd()), buf, 0); err != nil {
		return err
	}
	sqe.SetUserData(s, 2)
	if _, err := r.SubmitAndWait(1); err != nil {
		return err
	}
	if c, err = r.WaitCQE(); err != nil {
		return err
	}
	n, err = cqe.Result(c)
	r.CQESeen(c)
	if err != nil {
		return err
	}
	fmt.Printf("%q\n", buf[:n])
	return nil
}
