//go:build linux

package bench

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pure-uring/uring/task"
	"github.com/pure-uring/uring/task/goio"
)

// defaultServeFileSize is the served file when --size is not given on the
// command line (BENCHMARKS.md: 1 GiB; the flag's own default is smaller).
const defaultServeFileSize = 256 << 20

// runServeFile: http.ServeContent of one file, downloaded whole again and
// again by conns clients at once: a goio.File on the runtime's listener
// (splice from the page cache into the socket, no user-space copy) vs an
// *os.File on net.Listen (sendfile). The load is Go's HTTP client in this
// process (mode "go") or curl processes (mode "curl"); every run first
// downloads the file once and checks its SHA-256, then counts the bytes of
// downloads (each checked for its length) for the run's duration.
func runServeFile(c *Config) ([]Point, error) {
	size := c.FileSize
	if size <= 0 {
		size = defaultServeFileSize
	}
	path, sum, cleanup, err := serveFileData(c, size)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	d := c.dur()
	execs := 1
	if len(c.Executors) > 0 {
		execs = c.Executors[0]
	}
	var out []Point
	for _, mode := range orStrings(c.Modes, []string{"go"}) {
		var load fileLoad
		switch mode {
		case "go":
			load = goDownloads
		case "curl":
			bin, err := exec.LookPath("curl")
			if err != nil || c.NoPeers {
				out = append(out, unsupported(Point{Workload: "serve-file", Mode: mode, Axis: "conns", Unit: "MB/s", Higher: true},
					"goio.File on goio.Listener", "os.File on net.Listen", "curl is not installed (or --no-peers)", max(c.Reps, 1)))
				continue
			}
			load = curlDownloads(bin)
		default:
			return nil, fmt.Errorf("serve-file: --mode %q: want go or curl", mode)
		}
		for _, conns := range orInts(c.Conns, []int{1, 4}) {
			s := spec{
				meta: Point{Workload: "serve-file", Mode: mode, Axis: "conns", X: int64(conns), Unit: "MB/s", Higher: true,
					Params: Params{Conns: conns, Executors: execs, FileSize: size, File: path, Duration: d.String(), Load: mode}},
				project: []impl{{"goio.File on goio.Listener", func() (sample, error) {
					return serveFileRuntime(execs, path, size, sum, conns, d, load)
				}}},
				baseline: impl{"os.File on net.Listen", func() (sample, error) {
					return serveFileStd(path, size, sum, conns, d, load)
				}},
			}
			pts, err := c.measure(s)
			if err != nil {
				return nil, err
			}
			out = append(out, pts...)
		}
	}
	return out, nil
}

// serveFileData makes the served file (size reproducible random bytes, in
// --dir or the working directory; /tmp may be a tmpfs) and its SHA-256.
func serveFileData(c *Config, size int64) (string, [32]byte, func(), error) {
	dir := c.Dir
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "uring-bench-serve-*.dat")
	if err != nil {
		return "", [32]byte{}, nil, err
	}
	cleanup := func() { os.Remove(f.Name()) }
	h := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
	r := rand.New(rand.NewPCG(uint64(size), 13))
	var block [8]byte
	for n := int64(0); n < size; n += 8 {
		v := r.Uint64()
		for i := range block {
			block[i] = byte(v >> (8 * i))
		}
		if _, err := w.Write(block[:min(8, size-n)]); err != nil {
			f.Close()
			cleanup()
			return "", [32]byte{}, nil, err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		cleanup()
		return "", [32]byte{}, nil, err
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", [32]byte{}, nil, err
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return f.Name(), sum, cleanup, nil
}

// fileLoad downloads url with conns clients for d (whole downloads, each
// of size bytes) and returns the bytes moved; verify first downloads it
// once and checks its digest.
type fileLoad func(url string, size int64, sum [32]byte, conns int, d time.Duration) (sample, error)

// serveFile serves path with http.ServeContent on ln, opening it with
// open per request, while load runs.
func serveFile(ln net.Listener, open func() (io.ReadSeekCloser, error), size int64, sum [32]byte, conns int, d time.Duration, load fileLoad) (sample, error) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := open()
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, "data", time.Time{}, f)
	})}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Serve(ln) }()
	defer func() { srv.Close(); wg.Wait() }()
	return load("http://"+ln.Addr().String()+"/", size, sum, conns, d)
}

func serveFileRuntime(execs int, path string, size int64, sum [32]byte, conns int, d time.Duration, load fileLoad) (sample, error) {
	rt, err := task.NewRuntime(execs)
	if err != nil {
		return sample{}, err
	}
	defer rt.Close()
	env := goio.On(rt)
	ln, err := env.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return sample{}, err
	}
	return serveFile(ln, func() (io.ReadSeekCloser, error) { return env.OpenFile(path, os.O_RDONLY, 0) }, size, sum, conns, d, load)
}

func serveFileStd(path string, size int64, sum [32]byte, conns int, d time.Duration, load fileLoad) (sample, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return sample{}, err
	}
	return serveFile(ln, func() (io.ReadSeekCloser, error) { return os.Open(path) }, size, sum, conns, d, load)
}

// discard is io.Discard without ReadFrom, so io.CopyBuffer reads with our
// large buffer (io.Discard's ReadFrom reads 8 KiB at a time).
type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// goDownloads is the in-process load: conns goroutines, each with its own
// keep-alive connection, downloading the file again and again.
func goDownloads(url string, size int64, sum [32]byte, conns int, d time.Duration) (sample, error) {
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: conns, ReadBufferSize: 64 << 10}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	get := func(w io.Writer, buf []byte) (int64, error) {
		resp, err := client.Get(url)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("serve-file: status %s", resp.Status)
		}
		n, err := io.CopyBuffer(w, resp.Body, buf)
		if err == nil && n != size {
			err = fmt.Errorf("serve-file: downloaded %d bytes of %d", n, size)
		}
		return n, err
	}
	buf := make([]byte, 1<<20)
	h := sha256.New()
	if _, err := get(h, buf); err != nil {
		return sample{}, err
	}
	if got := h.Sum(nil); string(got) != string(sum[:]) {
		return sample{}, errors.New("serve-file: the downloaded file's SHA-256 differs from the file's")
	}
	var total atomic.Int64
	errc := make(chan error, conns)
	start := time.Now()
	for i := 0; i < conns; i++ {
		go func() {
			buf := make([]byte, 1<<20)
			for time.Since(start) < d {
				n, err := get(discard{}, buf)
				total.Add(n)
				if err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	var err error
	for i := 0; i < conns; i++ {
		if e := <-errc; e != nil && err == nil {
			err = e
		}
	}
	return perSec(float64(total.Load())/1e6, time.Since(start)), err
}

// curlDownloads is the out-of-process load: conns curl processes, each
// downloading the file again and again into /dev/null (the first time
// through sha256 in this process), checking the size it reports.
func curlDownloads(bin string) fileLoad {
	return func(url string, size int64, sum [32]byte, conns int, d time.Duration) (sample, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-sS", "--fail", url)
		out, err := cmd.StdoutPipe()
		if err != nil {
			return sample{}, err
		}
		if err := cmd.Start(); err != nil {
			return sample{}, err
		}
		h := sha256.New()
		n, cerr := io.Copy(h, out)
		if err := cmd.Wait(); err != nil || cerr != nil {
			return sample{}, fmt.Errorf("serve-file: curl: %v %v", err, cerr)
		}
		if n != size || string(h.Sum(nil)) != string(sum[:]) {
			return sample{}, errors.New("serve-file: curl downloaded a file whose size or SHA-256 differs")
		}
		var total atomic.Int64
		errc := make(chan error, conns)
		start := time.Now()
		for i := 0; i < conns; i++ {
			go func() {
				for time.Since(start) < d {
					out, err := exec.CommandContext(ctx, bin, "-sS", "--fail", "-o", "/dev/null", "-w", "%{size_download}", url).Output()
					if err != nil {
						errc <- fmt.Errorf("serve-file: curl: %v", err)
						return
					}
					got, _ := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
					total.Add(got)
					if got != size {
						errc <- fmt.Errorf("serve-file: curl downloaded %d bytes of %d", got, size)
						return
					}
				}
				errc <- nil
			}()
		}
		var err2 error
		for i := 0; i < conns; i++ {
			if e := <-errc; e != nil && err2 == nil {
				err2 = e
			}
		}
		return perSec(float64(total.Load())/1e6, time.Since(start)), err2
	}
}
