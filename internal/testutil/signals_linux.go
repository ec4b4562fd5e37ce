//go:build linux

package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// SignalStorm sends SIGURG to thread tid of this process, over and over,
// until the returned stop is called (stop waits for the sender to end).
// SIGURG is the signal Go's runtime preempts goroutines with, and Go
// ignores one that preempts nothing, so the storm changes no behaviour of
// the program: it only keeps a signal pending at that thread, as a busy
// Go program does at random moments. A kernel path that fails while a
// signal is pending (starting an io-wq worker) then fails every time.
func SignalStorm(tid int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pid := unix.Getpid()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			if unix.Tgkill(pid, tid, unix.SIGURG) != nil {
				return // the thread is gone
			}
			if i%64 == 0 {
				runtime.Gosched() // a GOMAXPROCS=1 run still gets to the thread's work
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// IOWorkers counts the io-wq workers of thread tid (the kernel names them
// iou-wrk-<tid>; they are threads of this process).
func IOWorkers(tid int) int {
	comms, _ := filepath.Glob("/proc/self/task/*/comm")
	want := "iou-wrk-" + strconv.Itoa(tid)
	n := 0
	for _, c := range comms {
		if b, err := os.ReadFile(c); err == nil && strings.TrimSpace(string(b)) == want {
			n++
		}
	}
	return n
}

// ThreadAlive reports whether thread tid of this process still exists.
func ThreadAlive(tid int) bool {
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid))
	return err == nil
}
