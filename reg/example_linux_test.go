//go:build linux

package reg_test

import (
	"fmt"
	"os"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// A file registered in slot 0 of the ring's file table and two registered
// buffers: WRITE_FIXED sends buffer 0 to the file, READ_FIXED reads it back
// into buffer 1. The kernel neither looks the fd up nor pins the pages for
// each request.
func ExampleRegisterBuffers() {
	f, err := os.CreateTemp("", "reg-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()

	r, err := uring.New(8)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()

	// Slot 0 of the file table holds f (the kernel takes its own reference).
	files, err := reg.RegisterFiles(r, []int{int(f.Fd())}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer files.Unregister()
	const file sqe.Slot = 0

	// Two 4 KiB buffers in memory reg maps off the Go heap. Unregister them
	// before the ring closes: it is what unmaps them.
	bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 2, Size: 4096})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bufs.Unregister()

	out := bufs.Buf(0)
	n := copy(out, "hello, fixed buffers")
	written, err := runFixed(r, bufs, func(s *sys.SQE) error {
		// The builder's fd is replaced by the slot: SetSlot comes after it.
		if err := sqe.WriteFixed(s, 0, out[:n], 0, 0); err != nil {
			return err
		}
		return sqe.SetSlot(s, file)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("wrote", written, "bytes from buffer 0")

	in := bufs.Buf(1)
	read, err := runFixed(r, bufs, func(s *sys.SQE) error {
		if err := sqe.ReadFixed(s, 0, in[:64], 0, 1); err != nil {
			return err
		}
		return sqe.SetSlot(s, file)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("read %d bytes into buffer 1: %q\n", read, in[:read])
	// Output:
	// wrote 20 bytes from buffer 0
	// read 20 bytes into buffer 1: "hello, fixed buffers"
}

// runFixed submits one request that uses the buffer table and waits for its
// result. Acquire before the submit and Release after the CQE keep the
// table's memory mapped while the kernel may use it.
func runFixed(r *uring.Ring, bufs *reg.Buffers, prep func(*sys.SQE) error) (int, error) {
	if err := bufs.Acquire(); err != nil {
		return 0, err
	}
	defer bufs.Release()
	s, err := r.GetSQE()
	if err != nil {
		return 0, err
	}
	if err := prep(s); err != nil {
		return 0, err // s stays a zeroed SQE: a NOP the next submit sends
	}
	if _, err := r.SubmitAndWait(1); err != nil {
		return 0, err
	}
	c, err := r.WaitCQE()
	if err != nil {
		return 0, err
	}
	defer r.CQESeen(c)
	return cqe.Result(c)
}
