package testutil

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Snapshot is what a test package must give back: open fds, goroutines
// and memory mappings.
type Snapshot struct {
	Fds        int
	Goroutines int
	Mappings   int
}

// Take records the current counts after letting finished goroutines exit
// and cleanups run.
func Take() Snapshot {
	settle()
	return Snapshot{Fds: countFds(), Goroutines: countGoroutines(), Mappings: countMappings()}
}

func settle() {
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

func countFds() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// countMappings counts mappings of io_uring fds (rings, SQEs, buffer rings);
// anonymous memory is left out, since the Go heap and thread stacks grow
// there on their own.
func countMappings() int {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return -1
	}
	return strings.Count(string(b), "[io_uring]")
}

// countGoroutines counts goroutines other than the runtime's and the
// signal package's, which live for the whole process once started.
func countGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if g == "" || strings.Contains(g, "os/signal.") || strings.Contains(g, "signal.loop") {
			continue
		}
		count++
	}
	return count
}

// Leaked compares after with before, retrying for up to a second while
// things wind down, and describes what is still over.
func Leaked(before Snapshot) string {
	var after Snapshot
	for i := 0; i < 20; i++ {
		after = Take()
		if after.Fds <= before.Fds && after.Goroutines <= before.Goroutines && after.Mappings <= before.Mappings {
			return ""
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("leak: fds %d -> %d, goroutines %d -> %d, mappings %d -> %d",
		before.Fds, after.Fds, before.Goroutines, after.Goroutines, before.Mappings, after.Mappings)
}

// Main runs the tests of a package and fails the run when fds, goroutines
// or mappings leaked. Use it as: func TestMain(m *testing.M) { testutil.Main(m) }.
func Main(m *testing.M) {
	before := Take()
	code := m.Run()
	if code == 0 {
		if msg := Leaked(before); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
			code = 1
		}
	}
	os.Exit(code)
}
