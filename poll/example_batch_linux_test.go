//go:build linux

package poll_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// recordReads reads record i of a file of 4-byte records into bufs[i];
// its HandleBatch runs on the loop thread for each CQE, with the SQE's
// index in the batch.
type recordReads struct {
	f    *os.File
	bufs [][4]byte
	left int
	done chan error
}

// prep fills a run of SQEs, run[k] reading record i+k.
func (r *recordReads) prep(i int, run []sys.SQE) error {
	for k := range run {
		if err := sqe.Read(&run[k], int(r.f.Fd()), r.bufs[i+k][:], int64(4*(i+k))); err != nil {
			return err
		}
	}
	return nil
}

func (r *recordReads) HandleBatch(i int, c *sys.CQE) {
	if c.Res != 4 {
		r.done <- fmt.Errorf("record %d: res %d", i, c.Res)
		return
	}
	if r.left--; r.left == 0 {
		r.done <- nil
	}
}

// PrepBatch prepares many SQEs for one handler in one step, on the loop
// thread (from Run or a handler): one slot for the batch, the SQEs filled
// a run at a time (the whole batch unless it wraps around the SQ's end),
// each CQE handed over with its SQE's index. The handler keeps the
// buffers reachable until the last CQE.
func ExampleLoop_PrepBatch() {
	dir, err := os.MkdirTemp("", "prepbatch")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "records")
	if err := os.WriteFile(path, []byte("zeroone_two_thre"), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()

	l, err := poll.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	r := &recordReads{f: f, bufs: make([][4]byte, 4), left: 4, done: make(chan error, 1)}
	var prepErr error
	if err := l.Run(func() { _, _, prepErr = l.PrepBatch(r, len(r.bufs), r.prep) }); err != nil || prepErr != nil {
		fmt.Println(err, prepErr)
		return
	}
	if err := <-r.done; err != nil {
		fmt.Println(err)
		return
	}
	for i, b := range r.bufs {
		fmt.Printf("%d: %s\n", i, b[:])
	}
	// Output:
	// 0: zero
	// 1: one_
	// 2: two_
	// 3: thre
}
