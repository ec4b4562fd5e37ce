//go:build linux

package main_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/task/fileio"
)

// TestMain fails the package when its tests leak fds, goroutines or
// io_uring mappings. `bench files` runs on fileio.Default()'s rings, which
// live for the process (never closed, as documented): they and their
// reapers are started before the snapshot.
func TestMain(m *testing.M) {
	if err := startFileioDefault(); err != nil {
		fmt.Fprintln(os.Stderr, "starting fileio.Default():", err)
		os.Exit(1)
	}
	testutil.Main(m)
}

// startFileioDefault starts fileio.Default()'s rings and each ring's
// reaper goroutine (started on a ring's first batch, then parked for the
// process's life): a two-read ReadAtBatch goes to each ring in turn.
func startFileioDefault() error {
	f, err := os.CreateTemp("", "fileio-default-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write([]byte("ab"))
	if err1 := f.Close(); err == nil {
		err = err1
	}
	if err != nil {
		return err
	}
	ff, err := fileio.Open(f.Name())
	if err != nil {
		return err
	}
	defer ff.Close()
	for range 2 * runtime.GOMAXPROCS(0) { // more batches than rings
		ops := []fileio.ReadOp{{Buf: make([]byte, 1), Off: 0}, {Buf: make([]byte, 1), Off: 1}}
		if err := ff.ReadAtBatch(ops); err != nil {
			return err
		}
		for _, op := range ops {
			if op.Err != nil {
				return op.Err
			}
		}
	}
	return nil
}
