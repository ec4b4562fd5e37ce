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
	return Snapshot{Fds: countFds(), Goroutines: runtime.NumGoroutine(), Mappings: countMappings()}
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

func countMappings() int {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return -1
	}
	return strings.Count(string(b), "\n")
}

// Leaked compares after with before, retrying for up to a second while
// things wind down, and describes what is still over.
func Leaked(before Snapshot) string {
	var after Snapshot
	for i := 0; i < 20; i++ {
		after = Take()
		if after.Fds <= before.Fds && after.Goroutines <= before.Goroutines && after.Mappings <= before.Mappings+mappingSlack {
			return ""
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("leak: fds %d -> %d, goroutines %d -> %d, mappings %d -> %d",
		before.Fds, after.Fds, before.Goroutines, after.Goroutines, before.Mappings, after.Mappings)
}

// mappingSlack allows for the Go heap growing into new arenas during the
// tests; ring mappings come in twos and threes per ring, so a leak of even a
// handful of rings exceeds it.
const mappingSlack = 8

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
