package testutil

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
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
	fdNames    map[string]string // fd number -> what it is (readlink), to name a leak
}

// Take records the current counts after letting finished goroutines exit
// and cleanups run.
func Take() Snapshot {
	settle()
	names := fdNames()
	return Snapshot{Fds: len(names), Goroutines: countGoroutines(), Mappings: countMappings(), fdNames: names}
}

func settle() {
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// fdNames maps each open fd to its /proc/self/fd link (the file, socket,
// pipe or anon inode behind it).
func fdNames() map[string]string {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	m := make(map[string]string, len(ents))
	for _, e := range ents {
		target, _ := os.Readlink("/proc/self/fd/" + e.Name())
		m[e.Name()] = target
	}
	return m
}

// newFds describes the fds of after that before did not have.
func newFds(before, after Snapshot) string {
	var out []string
	for fd, target := range after.fdNames {
		if before.fdNames[fd] != target {
			out = append(out, fd+"="+target)
		}
	}
	return strings.Join(out, " ")
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
	return fmt.Sprintf("leak: fds %d -> %d (new: %s), goroutines %d -> %d, mappings %d -> %d",
		before.Fds, after.Fds, newFds(before, after), before.Goroutines, after.Goroutines, before.Mappings, after.Mappings)
}

// Main runs the tests of a package and fails the run when fds, goroutines
// or mappings leaked. Use it as: func TestMain(m *testing.M) { testutil.Main(m) }.
func Main(m *testing.M) { os.Exit(RunMain(m)) }

// RunMain is Main without the exit: it returns the code.
func RunMain(m *testing.M) int {
	before := Take()
	code := m.Run()
	if code == 0 {
		if msg := Leaked(before); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
			code = 1
		}
	}
	return code
}

// RerunWithEnv runs the test binary again, with the same arguments and
// the environment variable kv ("NAME=value") added, and returns its exit
// code: a package's suite runs twice, in two configurations (the task
// layer's two backends). Its output goes to this process's.
func RerunWithEnv(kv string) int {
	args, ok := rerunArgs(os.Args[1:], time.Since(procStart))
	if !ok {
		fmt.Fprintf(os.Stderr, "rerun with %s: the binary's -test.timeout leaves no time for it\n", kv)
		return 1
	}
	fmt.Fprintf(os.Stderr, "=== rerun with %s\n", kv)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), kv)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "rerun with %s: %v\n", kv, err)
		return 1
	}
	return 0
}

// procStart is when the test binary started: a rerun gets what is left of
// its -test.timeout.
var procStart = time.Now()

// rerunArgs are the binary's arguments for a rerun that has used elapsed
// of the run's -test.timeout: the child gets what is left (less a margin
// for the parent to report), so that a child out of time reports its
// stuck test itself instead of outliving its killed parent. false when
// less than 30 s would be left.
func rerunArgs(args []string, elapsed time.Duration) ([]string, bool) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		var v string
		switch {
		case strings.HasPrefix(a, "-test.timeout="):
			v = strings.TrimPrefix(a, "-test.timeout=")
		case a == "-test.timeout" && i+1 < len(args):
			i++
			v = args[i]
		default:
			out = append(out, a)
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil || d == 0 {
			out = append(out, "-test.timeout="+v)
			continue
		}
		left := d - elapsed - 10*time.Second
		if left < 30*time.Second {
			return nil, false
		}
		out = append(out, "-test.timeout="+left.Round(time.Second).String())
	}
	return out, true
}
