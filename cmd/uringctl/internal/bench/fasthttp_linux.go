//go:build linux

package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// fasthttpSource is the fasthttp peer of the http workload: the hello
// handler's response (same body, same Content-Type, a Date, no Server
// header, like net/http) on ADDR with GOMAXPROCS=PROCS (0: the default);
// it prints the address it listens on, then serves until killed.
const fasthttpSource = `package main

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"

	"github.com/valyala/fasthttp"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: fasthttp-hello ADDR PROCS")
		os.Exit(2)
	}
	procs, err := strconv.Atoi(os.Args[2])
	if err != nil || procs < 0 {
		fmt.Fprintf(os.Stderr, "fasthttp-hello: bad PROCS %q\n", os.Args[2])
		os.Exit(2)
	}
	if procs > 0 {
		runtime.GOMAXPROCS(procs)
	}
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fasthttp-hello:", err)
		os.Exit(1)
	}
	body := []byte("Hello, World!")
	srv := &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("text/plain; charset=utf-8")
			ctx.SetBody(body)
		},
		NoDefaultServerHeader: true,
	}
	fmt.Println(ln.Addr().String())
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "fasthttp-hello:", err)
		os.Exit(1)
	}
}
`

// fasthttpGoMod pins the fasthttp release the peer is built with (it
// needs go 1.24); go mod tidy fills in its dependencies and go.sum.
const fasthttpGoMod = `module fasthttp-hello

go 1.24.0

require github.com/valyala/fasthttp v1.69.0
`

// fasthttpBuildTimeout bounds the module download and the build together.
const fasthttpBuildTimeout = 2 * time.Minute

// fasthttpUnavailable is a build that failed before compiling: the go
// toolchain is missing or the fasthttp module could not be had (offline,
// no proxy). Any other build error is a bug in fasthttpSource.
type fasthttpUnavailable string

func (e fasthttpUnavailable) Error() string { return string(e) }

var fasthttpBin peerBuild

// fasthttpProgram builds the fasthttp peer once per process into a temp
// dir (left in os.TempDir as uring-bench-fasthttp-*: nothing removes it at
// exit); an error says why it cannot.
func fasthttpProgram() (string, error) {
	return fasthttpBin.get("uring-bench-fasthttp-", func(dir string) (string, error) {
		return buildFasthttp(dir, fasthttpSource)
	})
}

// buildFasthttp writes src and the peer's go.mod into dir, fetches the
// module (go mod tidy: a failure, or a timeout, is a fasthttpUnavailable)
// and builds it with -mod=mod (cgo as the environment has it, so the std
// packages already in the build cache are reused); it returns the binary.
func buildFasthttp(dir, src string) (string, error) {
	gobin, err := goTool()
	if err != nil {
		return "", err
	}
	for name, text := range map[string]string{"main.go": src, "go.mod": fasthttpGoMod} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return "", err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), fasthttpBuildTimeout)
	defer cancel()
	goCmd := func(args ...string) error {
		cmd := exec.CommandContext(ctx, gobin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			return fasthttpUnavailable(fmt.Sprintf("fasthttp peer: go %s timed out after %v", args[0], fasthttpBuildTimeout))
		}
		if err != nil {
			return errors.New(goErrorLine(string(out), err))
		}
		return nil
	}
	var un fasthttpUnavailable
	if err := goCmd("mod", "tidy"); errors.As(err, &un) {
		return "", err
	} else if err != nil {
		return "", fasthttpUnavailable("fasthttp module not available: " + err.Error())
	}
	bin := filepath.Join(dir, "fasthttp-hello")
	if err := goCmd("build", "-mod=mod", "-o", bin, "."); errors.As(err, &un) {
		return "", err
	} else if err != nil {
		return "", fmt.Errorf("building the fasthttp peer failed: %w", err)
	}
	return bin, nil
}

// goTool finds the go command: in PATH, else in the GOROOT this binary was
// built with.
func goTool() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return "", fasthttpUnavailable("go toolchain not found (not in PATH nor in " + filepath.Dir(p) + ")")
}

// goErrorLine is go's first message in out, past progress and package
// headings ("go: downloading ...", "go: finding ...", "# pkg"), with its
// indented continuation lines ("go: x imports\n\ty: reason"); else err.
func goErrorLine(out string, err error) string {
	var msg []string
	for _, l := range strings.Split(out, "\n") {
		cont := strings.HasPrefix(l, "\t") || strings.HasPrefix(l, " ")
		l = strings.TrimSpace(l)
		switch {
		case l == "":
		case msg != nil && !cont:
			return strings.Join(msg, " ")
		case msg != nil:
			msg = append(msg, l)
		case !strings.HasPrefix(l, "go: downloading ") && !strings.HasPrefix(l, "go: finding ") && !strings.HasPrefix(l, "# "):
			msg = []string{l}
		}
	}
	if msg != nil {
		return strings.Join(msg, " ")
	}
	return err.Error()
}

// fasthttpPeers is the fasthttp peer of the http workload at one point
// (none for other workloads, with --no-peers, or when it cannot be built:
// then a note says why). It runs with GOMAXPROCS = execs, the project's
// core count at that point, in its own process.
func (c *Config) fasthttpPeers(workload string, execs, conns int, d time.Duration, load httpLoad) []impl {
	if workload != "http" || c.NoPeers {
		return nil
	}
	c.Progress.Show("http · fasthttp peer: building it (once per process)")
	bin, err := fasthttpProgram()
	if err != nil {
		c.logf("bench: http: fasthttp peer skipped: %v", err)
		return nil
	}
	return []impl{{"fasthttp", func() (sample, error) { return runFasthttp(bin, execs, conns, d, load) }}}
}

// fasthttpReadyTimeout bounds the wait for the peer's address line.
const fasthttpReadyTimeout = 10 * time.Second

// runFasthttp starts the peer on a free loopback port, runs load against
// the address it prints, then kills it.
func runFasthttp(bin string, procs, conns int, d time.Duration, load httpLoad) (sample, error) {
	addr, stop, err := startFasthttp(bin, procs)
	if err != nil {
		return sample{}, err
	}
	defer stop()
	return load.run(addr, conns, d)
}

// startFasthttp starts the peer and waits for the address it listens on;
// stop kills it and waits for it.
func startFasthttp(bin string, procs int) (addr string, stop func(), err error) {
	cmd := exec.Command(bin, "127.0.0.1:0", strconv.Itoa(procs))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() { cmd.Process.Kill(); cmd.Wait() }
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		s, err := bufio.NewReader(out).ReadString('\n')
		got <- line{s, err}
	}()
	var l line
	select {
	case l = <-got:
	case <-time.After(fasthttpReadyTimeout):
		cmd.Process.Kill()
		l = <-got
		l.err = fmt.Errorf("no address printed within %v", fasthttpReadyTimeout)
	}
	addr = strings.TrimSpace(l.s)
	if l.err == nil {
		_, _, l.err = net.SplitHostPort(addr)
	}
	if l.err != nil {
		stop()
		return "", nil, fmt.Errorf("fasthttp peer: %v (printed %q, stderr %q)", l.err, addr, firstLine(stderr.String()))
	}
	return addr, stop, nil
}
